// Synthetic homotopy workload at citation scale (Haffari & Sarkar 2008, §5), shared by
// homotopy_bench and top_eigen_bench and described in bench/RESULTS.md: K = 13 states, emission
// block free, initial and transitions frozen (P = K V), 1,000 unlabeled sentences of length
// 30–44 (mean 37) and 300 labeled ones, all sampled from a random HMM with flat-Dirichlet rows.
#pragma once

#include <Eigen/Dense>
#include <map>
#include <utility>
#include <vector>

#include "nodes/common/random.h"
#include "nodes/hmm/supervised.h"
#include "nodes/semi_supervised/em_lambda.h"
#include "nodes/semi_supervised/pom_layout.h"

namespace seqflow::bench {

inline constexpr int kHomotopyStates = 13;
inline constexpr int kHomotopyUnlabeled = 1000;
inline constexpr int kHomotopyLabeled = 300;

struct HomotopyWorkload {
  PomLayout layout;
  HmmParams supervised;  // frozen blocks and the λ = 0 model
  Eigen::VectorXd em0;   // [P] Θ̃ at λ = 0
  IdSentences unlabeled;
};

inline void SampleHomotopySentences(const HmmParams& hmm, int n, Rng& rng, IdSentences* words, IdSentences* labels) {
  constexpr int kMinLength = 30, kMaxLength = 44;
  for (int s = 0; s < n; ++s) {
    const int T = kMinLength + static_cast<int>(rng() % (kMaxLength - kMinLength + 1));
    std::vector<int32_t> x(T), y(T);
    for (int t = 0; t < T; ++t) {
      y[t] = t == 0 ? SampleCategorical(hmm.initial, rng)
                    : SampleCategorical(hmm.transition.row(y[t - 1]).transpose(), rng);
      x[t] = SampleCategorical(hmm.emission.row(y[t]).transpose(), rng);
    }
    words->push_back(std::move(x));
    if (labels != nullptr) labels->push_back(std::move(y));
  }
}

// The workload with V symbols, built once per V (seeded by V).
inline const HomotopyWorkload& GetHomotopyWorkload(int V) {
  static std::map<int, HomotopyWorkload> cache;
  auto it = cache.find(V);
  if (it != cache.end()) return it->second;
  Rng rng = ShardRng(2008, static_cast<uint64_t>(V));
  HmmParams truth;
  truth.initial = RandomStochasticRows(1, kHomotopyStates, rng).row(0).transpose();
  truth.transition = RandomStochasticRows(kHomotopyStates, kHomotopyStates, rng);
  truth.emission = RandomStochasticRows(kHomotopyStates, V, rng);
  IdSentences words, labels, unlabeled;
  SampleHomotopySentences(truth, kHomotopyLabeled, rng, &words, &labels);
  SampleHomotopySentences(truth, kHomotopyUnlabeled, rng, &unlabeled, nullptr);
  const HmmSmoothing smoothing{0.2, 0.2, 0.05};
  const PomLayout layout(kHomotopyStates, V, FreeBlocks{false, false, true});
  HomotopyWorkload w{layout, EstimateSupervisedHmm(words, labels, kHomotopyStates, V, smoothing),
                     Em0(layout, words, labels, smoothing), std::move(unlabeled)};
  return cache.emplace(V, std::move(w)).first->second;
}

}  // namespace seqflow::bench

// Synthetic HMM workload shared by the kernel benchmarks and described in bench/RESULTS.md:
// K states, V = 5,000 symbols, rows of pi, A and B flat-Dirichlet draws, sentences sampled from
// the HMM itself (so every sentence has non-zero probability) with lengths uniform in [12, 36]
// (mean 24). bench/peers/pomegranate_hmm_speed.py builds the same workload in numpy.
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <cstdint>
#include <vector>

#include "nodes/common/random.h"
#include "nodes/hmm/hmm_params.h"

namespace seqflow::bench {

inline constexpr int kSymbols = 5000;
inline constexpr int kMinLength = 12;
inline constexpr int kMaxLength = 36;

struct HmmWorkload {
  HmmParams hmm;
  std::vector<std::vector<int32_t>> sentences;
  int64_t tokens = 0;
};

// Inverse-CDF draw from a row's running sums: O(log V) instead of SampleCategorical's O(V).
inline int32_t SampleRow(const Eigen::MatrixXd& cumulative, int row, Rng& rng) {
  const double* begin = &cumulative(row, 0);  // row-major
  const double* end = begin + cumulative.cols();
  const double u = Uniform01(rng) * end[-1];
  return static_cast<int32_t>(std::min<std::ptrdiff_t>(std::upper_bound(begin, end, u) - begin, cumulative.cols() - 1));
}

inline Eigen::MatrixXd RowCumulative(const Eigen::MatrixXd& m) {
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> c = m;
  for (Eigen::Index j = 1; j < c.cols(); ++j) c.col(j) += c.col(j - 1);
  return c;
}

inline HmmWorkload MakeHmmWorkload(int K, int num_sentences, uint64_t seed = 2024) {
  Rng rng = ShardRng(seed, static_cast<uint64_t>(K));
  HmmWorkload w;
  w.hmm.initial = RandomStochasticRows(1, K, rng).row(0).transpose();
  w.hmm.transition = RandomStochasticRows(K, K, rng);
  w.hmm.emission = RandomStochasticRows(K, kSymbols, rng);
  const Eigen::MatrixXd a_cum = RowCumulative(w.hmm.transition);
  const Eigen::MatrixXd b_cum = RowCumulative(w.hmm.emission);
  const Eigen::MatrixXd pi_cum = RowCumulative(w.hmm.initial.transpose());
  w.sentences.resize(num_sentences);
  for (auto& s : w.sentences) {
    s.resize(kMinLength + static_cast<int>(rng() % (kMaxLength - kMinLength + 1)));
    int32_t y = SampleRow(pi_cum, 0, rng);
    for (size_t t = 0; t < s.size(); ++t) {
      if (t > 0) y = SampleRow(a_cum, y, rng);
      s[t] = SampleRow(b_cum, y, rng);
    }
    w.tokens += static_cast<int64_t>(s.size());
  }
  return w;
}

}  // namespace seqflow::bench

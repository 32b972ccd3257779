// Oracles and data for the homotopy tests: brute-force count covariances by enumerating all
// K^T labellings (tests/testutil/hmm_brute_force.h), labelled corpora sampled from an HMM, and
// central finite differences. Header-only; exponential oracles for T <= 4, K <= 3.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <functional>
#include <vector>

#include "nodes/common/random.h"
#include "nodes/semi_supervised/pom_layout.h"
#include "tests/testutil/hmm_brute_force.h"

namespace seqflow::testutil {

// Count(x, y) on the free parameters of `layout`.
inline Eigen::VectorXd FlatCounts(const PomLayout& layout, const std::vector<int32_t>& x,
                                  const std::vector<int32_t>& y) {
  Eigen::VectorXd c = Eigen::VectorXd::Zero(layout.num_params());
  auto add = [&](int index) {
    if (index >= 0) c[index] += 1;
  };
  add(layout.InitialIndex(y[0]));
  for (size_t t = 0; t < x.size(); ++t) {
    add(layout.EmissionIndex(y[t], x[t]));
    if (t > 0) add(layout.TransitionIndex(y[t - 1], y[t]));
  }
  return c;
}

// Cov_{P(y|x)}[Count(x, y)] [P x P] by enumeration.
inline Eigen::MatrixXd BruteForceCovariance(const PomLayout& layout, const HmmParams& hmm,
                                            const std::vector<int32_t>& x) {
  const int P = layout.num_params();
  Eigen::VectorXd mean = Eigen::VectorXd::Zero(P);
  Eigen::MatrixXd second = Eigen::MatrixXd::Zero(P, P);
  double z = 0;
  std::vector<int32_t> y(x.size(), 0);
  do {
    const double p = JointProbability(hmm, x, y);
    const Eigen::VectorXd c = FlatCounts(layout, x, y);
    z += p;
    mean += p * c;
    second += p * c * c.transpose();
  } while (NextLabelling(&y, hmm.num_states()));
  mean /= z;
  return second / z - mean * mean.transpose();
}

inline Eigen::MatrixXd BruteForceCorpusCovariance(const PomLayout& layout, const HmmParams& hmm,
                                                  const IdSentences& corpus) {
  Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(layout.num_params(), layout.num_params());
  for (const auto& x : corpus) sum += BruteForceCovariance(layout, hmm, x);
  return sum;
}

// Mean per-token posterior entropy of a corpus by enumeration.
inline double BruteForceMeanEntropy(const HmmParams& hmm, const IdSentences& corpus) {
  double h = 0;
  double tokens = 0;
  for (const auto& x : corpus) {
    const HmmBruteForce bf = EnumerateHmm(hmm, x);
    for (Eigen::Index i = 0; i < bf.gamma.size(); ++i) {
      const double g = bf.gamma.data()[i];
      if (g > 0) h -= g * std::log(g);
    }
    tokens += static_cast<double>(x.size());
  }
  return h / tokens;
}

struct LabeledCorpus {
  IdSentences words;
  IdSentences labels;
};

// n sentences (x, y) drawn from hmm, lengths uniform in [min_len, max_len].
inline LabeledCorpus SampleHmm(const HmmParams& hmm, size_t n, int min_len, int max_len, uint64_t seed) {
  Rng rng = ShardRng(seed, 2);
  LabeledCorpus out;
  for (size_t s = 0; s < n; ++s) {
    const int T = min_len + static_cast<int>(rng() % static_cast<uint64_t>(max_len - min_len + 1));
    std::vector<int32_t> x(T), y(T);
    for (int t = 0; t < T; ++t) {
      y[t] = t == 0 ? SampleCategorical(hmm.initial, rng)
                    : SampleCategorical(hmm.transition.row(y[t - 1]).transpose(), rng);
      x[t] = SampleCategorical(hmm.emission.row(y[t]).transpose(), rng);
    }
    out.words.push_back(std::move(x));
    out.labels.push_back(std::move(y));
  }
  return out;
}

// Central differences (f(v + h e_i) − f(v − h e_i)) / 2h, one column per coordinate.
inline Eigen::MatrixXd CentralDifferences(const std::function<Eigen::VectorXd(const Eigen::VectorXd&)>& f,
                                          const Eigen::VectorXd& v, double h) {
  Eigen::MatrixXd jac;
  for (Eigen::Index i = 0; i < v.size(); ++i) {
    Eigen::VectorXd plus = v, minus = v;
    plus[i] += h;
    minus[i] -= h;
    const Eigen::VectorXd col = (f(plus) - f(minus)) / (2 * h);
    if (i == 0) jac.resize(col.size(), v.size());
    jac.col(i) = col;
  }
  return jac;
}

inline const FreeBlocks kAllFree{true, true, true};
inline const FreeBlocks kTransitionsFrozen{true, false, true};
inline const FreeBlocks kEmissionOnly{false, false, true};

}  // namespace seqflow::testutil

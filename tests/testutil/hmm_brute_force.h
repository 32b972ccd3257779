// Brute-force oracles for discrete HMMs: enumerate all K^T label sequences of one sentence and
// compute, in plain probability space, everything the dynamic programs compute (likelihood,
// posteriors, expected counts, the best path). Exponential: for T <= ~6 and K <= ~4 only.
// Also small random HMMs and corpora for tests. Header-only; no gtest dependency.
#pragma once

#include <Eigen/Dense>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "nodes/common/random.h"
#include "nodes/hmm/hmm_params.h"

namespace seqflow::testutil {

struct HmmBruteForce {
  double likelihood = 0;           // p(x) = sum_y p(x, y)
  Eigen::MatrixXd gamma;           // [T x K] p(y_t = i | x), zero when p(x) = 0
  Eigen::VectorXd initial;         // [K] expected initial counts E[1{y_1 = i} | x]
  Eigen::MatrixXd transition;      // [K x K] expected transition counts
  Eigen::MatrixXd emission;        // [K x V] expected emission counts
  std::vector<int32_t> best_path;  // argmax_y p(x, y); the lexicographically first among ties
  double best_log_prob = -std::numeric_limits<double>::infinity();

  double log_likelihood() const { return std::log(likelihood); }
};

// p(x, y) for one labelling.
inline double JointProbability(const HmmParams& hmm, const std::vector<int32_t>& x, const std::vector<int32_t>& y) {
  double p = hmm.initial[y[0]] * hmm.emission(y[0], x[0]);
  for (size_t t = 1; t < x.size(); ++t) p *= hmm.transition(y[t - 1], y[t]) * hmm.emission(y[t], x[t]);
  return p;
}

// Advances y to the next sequence in lexicographic order; false after the last one.
inline bool NextLabelling(std::vector<int32_t>* y, int K) {
  for (size_t t = y->size(); t-- > 0;) {
    if (++(*y)[t] < K) return true;
    (*y)[t] = 0;
  }
  return false;
}

inline HmmBruteForce EnumerateHmm(const HmmParams& hmm, const std::vector<int32_t>& x) {
  const int K = hmm.num_states();
  const size_t T = x.size();
  HmmBruteForce r;
  r.gamma = Eigen::MatrixXd::Zero(T, K);
  r.initial = Eigen::VectorXd::Zero(K);
  r.transition = Eigen::MatrixXd::Zero(K, K);
  r.emission = Eigen::MatrixXd::Zero(K, hmm.num_symbols());
  std::vector<int32_t> y(T, 0);
  double best = -1;
  do {
    const double p = JointProbability(hmm, x, y);
    r.likelihood += p;
    if (p > best) {
      best = p;
      r.best_path = y;
    }
    r.initial[y[0]] += p;
    for (size_t t = 0; t < T; ++t) {
      r.gamma(t, y[t]) += p;
      r.emission(y[t], x[t]) += p;
      if (t + 1 < T) r.transition(y[t], y[t + 1]) += p;
    }
  } while (NextLabelling(&y, K));
  r.best_log_prob = std::log(best);
  if (r.likelihood > 0) {
    r.gamma /= r.likelihood;
    r.initial /= r.likelihood;
    r.transition /= r.likelihood;
    r.emission /= r.likelihood;
  }
  return r;
}

// A random HMM with flat-Dirichlet rows; `floor` mixes in the uniform distribution.
inline HmmParams RandomHmm(int K, int V, uint64_t seed, double floor = 0.0) {
  Rng rng = ShardRng(seed, 0);
  HmmParams hmm;
  hmm.initial = RandomStochasticRows(1, K, rng, floor).row(0).transpose();
  hmm.transition = RandomStochasticRows(K, K, rng, floor);
  hmm.emission = RandomStochasticRows(K, V, rng, floor);
  return hmm;
}

// Sentences with lengths uniform in [min_len, max_len] and uniform random symbols.
inline std::vector<std::vector<int32_t>> RandomCorpus(size_t n, int min_len, int max_len, int V, uint64_t seed) {
  Rng rng = ShardRng(seed, 1);
  std::vector<std::vector<int32_t>> corpus(n);
  for (auto& s : corpus) {
    s.resize(min_len + static_cast<int>(rng() % static_cast<uint64_t>(max_len - min_len + 1)));
    for (auto& x : s) x = static_cast<int32_t>(rng() % static_cast<uint64_t>(V));
  }
  return corpus;
}

}  // namespace seqflow::testutil

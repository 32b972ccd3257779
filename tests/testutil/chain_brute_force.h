// Brute-force oracle for linear chains of log-potentials: enumerate all K^T labellings of one
// chain and compute in plain probability space what the chain library computes (log Z,
// marginals, expected bigrams, the best path). Exponential: for T <= ~5 and K <= ~4 only, and
// scores small enough that exp does not overflow. Header-only; no gtest dependency.
#pragma once

#include <cmath>
#include <random>
#include <vector>

#include "nodes/chain/linear_chain.h"
#include "tests/testutil/hmm_brute_force.h"

namespace seqflow::testutil {

struct ChainBruteForce {
  double log_z = 0;
  RowMatrixXd marginals;  // [T x K]
  RowMatrixXd bigrams;    // [K x K] Σ_t P(y_{t-1} = i, y_t = j)
  std::vector<int32_t> best;
};

inline ChainBruteForce EnumerateChain(const RowMatrixXd& s, const RowMatrixXd& a) {
  const int T = static_cast<int>(s.rows()), K = static_cast<int>(s.cols());
  ChainBruteForce r;
  r.marginals = RowMatrixXd::Zero(T, K);
  r.bigrams = RowMatrixXd::Zero(K, K);
  std::vector<int32_t> y(T, 0);
  double z = 0, best = -1e300;
  do {
    const double score = ChainScore(s, a, y);
    const double p = std::exp(score);
    z += p;
    if (score > best) best = score, r.best = y;
    for (int t = 0; t < T; ++t) {
      r.marginals(t, y[t]) += p;
      if (t > 0) r.bigrams(y[t - 1], y[t]) += p;
    }
  } while (NextLabelling(&y, K));
  r.log_z = std::log(z);
  r.marginals /= z;
  r.bigrams /= z;
  return r;
}

// [rows x cols] with entries drawn from N(0, scale^2).
inline RowMatrixXd RandomRows(int rows, int cols, double scale, std::mt19937& rng) {
  std::normal_distribution<double> normal(0, scale);
  RowMatrixXd m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = normal(rng);
  return m;
}

}  // namespace seqflow::testutil

// Brute-force oracle for second-order chains (nodes/chain/second_order_lanes.h): enumerate all
// K^T tag sequences of one chain and compute in plain probability space log Z, tag and pair
// marginals, expected trigram counts and the best path. For T <= ~5, K <= ~3 and small scores.
// Header-only; no gtest dependency.
#pragma once

#include <cmath>
#include <vector>

#include "nodes/chain/second_order_lanes.h"
#include "tests/testutil/hmm_brute_force.h"

namespace seqflow::testutil {

struct SecondOrderBruteForce {
  double log_z = 0;
  RowMatrixXd marginals;      // [T x K]
  std::vector<double> pairs;  // [T x K x K] P(y_{t-1} = b, y_t = c) at (t K + b) K + c; row 0 zero
  Eigen::VectorXd trigrams;   // [(K+1) K K] Σ_t P(y_{t-2} = a, y_{t-1} = b, y_t = c), a = K at t = 1
  std::vector<int32_t> best;
  double best_score = 0;
};

inline SecondOrderBruteForce EnumerateSecondOrder(const RowMatrixXd& s, const Eigen::VectorXd& g) {
  const int T = static_cast<int>(s.rows()), K = static_cast<int>(s.cols());
  SecondOrderBruteForce r;
  r.marginals = RowMatrixXd::Zero(T, K);
  r.pairs.assign(static_cast<size_t>(T) * K * K, 0.0);
  r.trigrams = Eigen::VectorXd::Zero(TrigramSize(K));
  std::vector<int32_t> y(T, 0);
  double z = 0;
  r.best_score = -1e300;
  do {
    const double score = SecondOrderScore(s, g, y);
    const double p = std::exp(score);
    z += p;
    if (score > r.best_score) r.best_score = score, r.best = y;
    for (int t = 0; t < T; ++t) {
      r.marginals(t, y[t]) += p;
      if (t == 0) continue;
      r.pairs[(static_cast<size_t>(t) * K + y[t - 1]) * K + y[t]] += p;
      r.trigrams[TrigramIndex(K, t == 1 ? K : y[t - 2], y[t - 1], y[t])] += p;
    }
  } while (NextLabelling(&y, K));
  r.log_z = std::log(z);
  r.marginals /= z;
  for (double& p : r.pairs) p /= z;
  r.trigrams /= z;
  return r;
}

}  // namespace seqflow::testutil

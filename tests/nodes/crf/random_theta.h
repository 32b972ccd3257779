// Random HMM parameters Θ for the hybrid-model tests: every distribution strictly positive, so
// logs are finite and brute-force enumeration sees every labelling.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <random>
#include <vector>

#include "nodes/crf/hybrid_chain.h"

namespace seqflow::testutil {

// log of a random distribution over n outcomes, every probability >= ~0.02 / n.
inline Eigen::VectorXd RandomLogDistribution(Eigen::Index n, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(0.02, 1.0);
  Eigen::VectorXd p(n);
  for (Eigen::Index i = 0; i < n; ++i) p[i] = u(rng);
  return (p / p.sum()).array().log();
}

// One HMM over `labels` states per vocabulary size; emission columns sum to 1 over the symbols.
inline GenerativeParams RandomTheta(const std::vector<int64_t>& vocabulary, int labels, std::mt19937& rng) {
  GenerativeParams theta;
  for (const int64_t v : vocabulary) {
    theta.log_initial.push_back(RandomLogDistribution(labels, rng));
    RowMatrixXd a(labels, labels), e(v, labels);
    for (int k = 0; k < labels; ++k) a.row(k) = RandomLogDistribution(labels, rng).transpose();
    for (int k = 0; k < labels; ++k) e.col(k) = RandomLogDistribution(v, rng);
    theta.log_transition.push_back(a);
    theta.log_emission.push_back(e);
  }
  return theta;
}

}  // namespace seqflow::testutil

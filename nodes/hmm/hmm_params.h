// The parameters of a first-order discrete HMM, as probabilities (not logs).
#pragma once

#include <Eigen/Dense>

namespace seqflow {

struct HmmParams {
  Eigen::VectorXd initial;     // [K] pi(i) = p(y_1 = i), sums to 1
  Eigen::MatrixXd transition;  // [K x K] A(i, j) = p(y_t+1 = j | y_t = i), rows sum to 1
  Eigen::MatrixXd emission;    // [K x V] B(i, w) = p(x_t = w | y_t = i), rows sum to 1

  int num_states() const { return static_cast<int>(initial.size()); }
  int num_symbols() const { return static_cast<int>(emission.cols()); }
};

}  // namespace seqflow

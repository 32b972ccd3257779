#include "nodes/hmm/supervised.h"

namespace seqflow {
namespace {

// Adds eps to every cell and divides each row by its sum; an all-zero row becomes uniform.
void SmoothRows(double eps, Eigen::MatrixXd* counts) {
  counts->array() += eps;
  for (Eigen::Index i = 0; i < counts->rows(); ++i) {
    double total = counts->row(i).sum();
    if (total > 0) {
      counts->row(i) /= total;
    } else {
      counts->row(i).setConstant(1.0 / static_cast<double>(counts->cols()));
    }
  }
}

}  // namespace

HmmParams EstimateSupervisedHmm(const std::vector<std::vector<int32_t>>& words,
                                const std::vector<std::vector<int32_t>>& labels, int num_states, int num_symbols,
                                const HmmSmoothing& smoothing) {
  // The initial counts are kept as a [1 x K] matrix so all three blocks share SmoothRows.
  Eigen::MatrixXd initial = Eigen::MatrixXd::Zero(1, num_states);
  Eigen::MatrixXd transition = Eigen::MatrixXd::Zero(num_states, num_states);
  Eigen::MatrixXd emission = Eigen::MatrixXd::Zero(num_states, num_symbols);
  for (size_t s = 0; s < labels.size(); ++s) {
    const std::vector<int32_t>& y = labels[s];
    if (y.empty()) continue;
    initial(0, y[0]) += 1;
    for (size_t t = 0; t < y.size(); ++t) {
      emission(y[t], words[s][t]) += 1;
      if (t + 1 < y.size()) transition(y[t], y[t + 1]) += 1;
    }
  }
  SmoothRows(smoothing.initial, &initial);
  SmoothRows(smoothing.transition, &transition);
  SmoothRows(smoothing.emission, &emission);
  HmmParams params;
  params.initial = initial.row(0).transpose();
  params.transition = std::move(transition);
  params.emission = std::move(emission);
  return params;
}

}  // namespace seqflow

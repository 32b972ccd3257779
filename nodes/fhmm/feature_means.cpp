#include "nodes/fhmm/feature_means.h"

namespace seqflow {

FeatureMeans LabeledFeatureMeans(const Eigen::MatrixXd& word_label, const Eigen::SparseMatrix<double>& phi) {
  FeatureMeans out;
  out.mu = (phi.transpose() * word_label).transpose();  // [K x W]
  for (Eigen::Index h = 0; h < word_label.cols(); ++h) {
    const double n = word_label.col(h).sum();
    out.present.push_back(n > 0);
    if (n > 0) out.mu.row(h) /= n;
  }
  return out;
}

}  // namespace seqflow

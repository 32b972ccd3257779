#include "nodes/homotopy/deflation_space.h"

#include <algorithm>
#include <cmath>

namespace seqflow {

DeflationSpace::DeflationSpace(Eigen::Index n, int max_kept)
    : max_kept_(max_kept), z_(n, 0), w_(n, 0), z_minus_w_(n, 0) {}

Eigen::VectorXd DeflationSpace::Apply(const Eigen::VectorXd& v) const {
  if (w_.cols() == 0) return v;
  const Eigen::VectorXd c = w_.transpose() * v;
  return v + z_minus_w_ * c;
}

Eigen::MatrixXd DeflationSpace::ApplyColumns(const Eigen::MatrixXd& v) const {
  if (w_.cols() == 0) return v;
  const Eigen::MatrixXd c = w_.transpose() * v;
  return v + z_minus_w_ * c;
}

void DeflationSpace::Clear() {
  z_.resize(z_.rows(), 0);
  w_.resize(w_.rows(), 0);
  z_minus_w_.resize(z_.rows(), 0);
}

void DeflationSpace::Add(const Eigen::MatrixXd& z, const Eigen::MatrixXd& w) {
  const Eigen::Index fresh = std::min<Eigen::Index>(w.cols(), max_kept_);
  Eigen::Index old = std::min<Eigen::Index>(w_.cols(), max_kept_ - fresh);
  Eigen::MatrixXd z_old = z_.leftCols(old);
  Eigen::MatrixXd w_old = w_.leftCols(old);
  if (old > 0) {
    // Twice, as classical Gram–Schmidt needs to stay orthogonal in floating point.
    for (int pass = 0; pass < 2; ++pass) {
      const Eigen::MatrixXd c = w.leftCols(fresh).transpose() * w_old;
      w_old -= w.leftCols(fresh) * c;
      z_old -= z.leftCols(fresh) * c;
    }
    // w_old = Q R: the old pairs on the orthonormal Q, Z R⁻¹ alike; a column that (nearly)
    // vanished lies in the new directions' span and goes, with all after it.
    const Eigen::HouseholderQR<Eigen::MatrixXd> qr(w_old);
    const auto r = qr.matrixQR().topLeftCorner(old, old);
    Eigen::Index rank = 0;
    while (rank < old && std::abs(r(rank, rank)) > 1e-8) ++rank;
    old = rank;
    const Eigen::MatrixXd r_kept = r.topLeftCorner(old, old).triangularView<Eigen::Upper>();
    w_old = qr.householderQ() * Eigen::MatrixXd::Identity(w_old.rows(), old);
    z_old = r_kept.triangularView<Eigen::Upper>().transpose().solve(z_old.leftCols(old).transpose()).transpose();
  }
  Eigen::MatrixXd z_new(z.rows(), fresh + old), w_new(w.rows(), fresh + old);
  z_new << z.leftCols(fresh), z_old.leftCols(old);
  w_new << w.leftCols(fresh), w_old.leftCols(old);
  z_ = std::move(z_new);
  w_ = std::move(w_new);
  z_minus_w_ = z_ - w_;
}

}  // namespace seqflow

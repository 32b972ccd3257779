#include "nodes/numerics/recycling_gmres.h"

#include <algorithm>
#include <cmath>

#include "nodes/numerics/givens_hessenberg.h"
#include "nodes/numerics/gmres_restarts.h"

namespace seqflow {

RecyclingGmres::RecyclingGmres(LinearOperator apply, Eigen::Index n, int max_kept)
    : apply_(std::move(apply)), n_(n), max_kept_(max_kept), z_(n, 0), w_(n, 0) {}

int RecyclingGmres::Cycle(const Eigen::VectorXd& r, double beta, double target, int max_steps, Eigen::VectorXd* x) {
  const Eigen::Index k_old = w_.cols();
  Eigen::MatrixXd basis(n_, max_steps + 1);
  Eigen::MatrixXd hessenberg = Eigen::MatrixXd::Zero(max_steps + 1, max_steps);  // H̄, kept unrotated
  Eigen::MatrixXd h = Eigen::MatrixXd::Zero(max_steps + 1, max_steps);           // rotated to triangular
  Eigen::MatrixXd b = Eigen::MatrixXd::Zero(k_old, max_steps);                   // Wᵀ A V
  Eigen::VectorXd cs(max_steps), sn(max_steps);
  Eigen::VectorXd g = Eigen::VectorXd::Zero(max_steps + 1);
  g[0] = beta;
  basis.col(0) = r / beta;
  int k = 0;
  bool invariant = false;
  while (k < max_steps) {
    Eigen::VectorXd w = apply_(basis.col(k));
    if (k_old > 0) {
      b.col(k) = w_.transpose() * w;
      w -= w_ * b.col(k);
    }
    for (int i = 0; i <= k; ++i) {
      hessenberg(i, k) = w.dot(basis.col(i));
      w -= hessenberg(i, k) * basis.col(i);
    }
    const double norm = w.norm();
    hessenberg(k + 1, k) = norm;
    if (norm > 0) basis.col(k + 1) = w / norm;
    h.col(k).head(k + 2) = hessenberg.col(k).head(k + 2);
    RotateHessenbergColumn(k, &h, &cs, &sn, &g);
    ++k;
    invariant = norm == 0;
    if (std::abs(g[k]) <= target || invariant) break;
  }
  const Eigen::VectorXd y = h.topLeftCorner(k, k).triangularView<Eigen::Upper>().solve(g.head(k));
  *x += basis.leftCols(k) * y;
  if (k_old > 0) *x -= z_ * (b.leftCols(k) * y);
  // Keep the cycle's directions: A (V − Z B) = V_k+1 H̄ = (V_k+1 Q) R.
  const int rows = invariant ? k : k + 1;  // an invariant space has no (k+1)-th vector
  const int keep = std::min<int>(k, max_kept_ - static_cast<int>(k_old));
  if (keep <= 0) return k;
  const Eigen::HouseholderQR<Eigen::MatrixXd> qr(hessenberg.topLeftCorner(rows, k));
  const Eigen::MatrixXd r_factor = qr.matrixQR().topLeftCorner(k, k).triangularView<Eigen::Upper>();
  for (int i = 0; i < k; ++i)
    if (!(std::abs(r_factor(i, i)) > 1e-14 * std::abs(r_factor(0, 0)))) return k;  // (nearly) dependent
  const Eigen::MatrixXd q = qr.householderQ() * Eigen::MatrixXd::Identity(rows, k);
  Eigen::MatrixXd v_minus_zb = basis.leftCols(k);
  if (k_old > 0) v_minus_zb -= z_ * b.leftCols(k);
  // Z_new = (V − Z B) R⁻¹, i.e. Z_new R = V − Z B: solve Rᵀ Z_newᵀ = (V − Z B)ᵀ.
  const Eigen::MatrixXd z_new =
      r_factor.triangularView<Eigen::Upper>().transpose().solve(v_minus_zb.transpose()).transpose();
  const Eigen::MatrixXd w_new = basis.leftCols(rows) * q;
  z_.conservativeResize(Eigen::NoChange, k_old + keep);
  w_.conservativeResize(Eigen::NoChange, k_old + keep);
  z_.rightCols(keep) = z_new.leftCols(keep);
  w_.rightCols(keep) = w_new.leftCols(keep);
  return k;
}

GmresResult RecyclingGmres::Solve(const Eigen::VectorXd& b, const Eigen::VectorXd& x0, const GmresOptions& options) {
  if (b.norm() == 0) {
    GmresResult result;
    result.x = Eigen::VectorXd::Zero(n_);
    result.converged = true;
    return result;
  }
  Eigen::VectorXd start = Eigen::VectorXd::Zero(n_);
  if (x0.size() > 0) {
    start = x0;
  } else if (w_.cols() > 0) {
    start = z_ * (w_.transpose() * b);
  }
  // The residual's part along W is removed within span Z at no product.
  const auto take_along_w = [this](Eigen::VectorXd* x, Eigen::VectorXd* r) {
    if (w_.cols() == 0) return;
    const Eigen::VectorXd along = w_.transpose() * *r;
    *x += z_ * along;
    *r -= w_ * along;
  };
  return RunGmresRestarts(apply_, b, std::move(start), options, take_along_w,
                          [this](const Eigen::VectorXd& r, double beta, double target, int budget, Eigen::VectorXd* x) {
                            return Cycle(r, beta, target, budget, x);
                          });
}

}  // namespace seqflow

#include "nodes/numerics/lanczos.h"

#include <algorithm>
#include <cmath>

namespace seqflow {
namespace {

// The largest eigenpair of the k x k tridiagonal matrix (alpha, beta), and the gap to the next
// eigenvalue (0 when k = 1: unknown).
void TopRitzPair(const Eigen::VectorXd& alpha, const Eigen::VectorXd& beta, int k, double* value, Eigen::VectorXd* y,
                 double* gap) {
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig;
  eig.computeFromTridiagonal(alpha.head(k), beta.head(k - 1), Eigen::ComputeEigenvectors);
  *value = eig.eigenvalues()[k - 1];  // ascending order
  *y = eig.eigenvectors().col(k - 1);
  *gap = k > 1 ? *value - eig.eigenvalues()[k - 2] : 0.0;
}

// The eigenvalue is known well enough, and on a certain side of the threshold.
bool ValueSettled(double value, double residual, double gap, double threshold, const LanczosOptions& options) {
  if (options.value_rel_tol <= 0) return false;
  const double error = gap > 0 ? std::min(residual, residual * residual / gap) : residual;
  const bool decided = value > threshold || value + residual < threshold;
  return error <= options.value_rel_tol * std::abs(value) && decided;
}

}  // namespace

LanczosResult LargestEigenpair(const LinearOperator& apply, const Eigen::VectorXd& start, const LanczosOptions& options,
                               double threshold) {
  const Eigen::Index n = start.size();
  const int m = static_cast<int>(std::min<Eigen::Index>(options.max_iter, n));
  Eigen::MatrixXd basis(n, m);
  Eigen::VectorXd alpha(m), beta(m);
  Eigen::VectorXd y;
  LanczosResult result;
  basis.col(0) = start.normalized();
  int k = 0;
  while (k < m) {
    Eigen::VectorXd w = apply(basis.col(k));
    ++result.iterations;
    alpha[k] = basis.col(k).dot(w);
    for (int pass = 0; pass < 2; ++pass) w -= basis.leftCols(k + 1) * (basis.leftCols(k + 1).transpose() * w);
    beta[k] = w.norm();
    ++k;
    double gap = 0;
    TopRitzPair(alpha, beta, k, &result.value, &y, &gap);
    const double residual = beta[k - 1] * std::abs(y[k - 1]);
    if (residual <= options.rel_tol * std::abs(result.value) || beta[k - 1] == 0 ||
        ValueSettled(result.value, residual, gap, threshold, options)) {
      result.converged = true;
      break;
    }
    if (k < m) basis.col(k) = w / beta[k - 1];
  }
  result.vector = (basis.leftCols(k) * y).normalized();
  return result;
}

}  // namespace seqflow

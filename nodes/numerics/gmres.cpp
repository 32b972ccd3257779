#include "nodes/numerics/gmres.h"

#include <cmath>

#include "nodes/numerics/givens_hessenberg.h"
#include "nodes/numerics/gmres_restarts.h"

namespace seqflow {
namespace {

// One GMRES cycle from x with residual r (‖r‖ = beta); returns the steps taken and adds the
// minimiser to x. Stops early when the estimated residual drops to `target`.
int GmresCycle(const LinearOperator& apply, const Eigen::VectorXd& r, double beta, double target, int max_steps,
               Eigen::VectorXd* x) {
  const Eigen::Index n = r.size();
  Eigen::MatrixXd basis(n, max_steps + 1);
  Eigen::MatrixXd h = Eigen::MatrixXd::Zero(max_steps + 1, max_steps);  // rotated to upper triangular
  Eigen::VectorXd cs(max_steps), sn(max_steps);
  Eigen::VectorXd g = Eigen::VectorXd::Zero(max_steps + 1);  // rotated β e_1
  g[0] = beta;
  basis.col(0) = r / beta;
  int k = 0;
  while (k < max_steps) {
    Eigen::VectorXd w = apply(basis.col(k));
    for (int i = 0; i <= k; ++i) {
      h(i, k) = w.dot(basis.col(i));
      w -= h(i, k) * basis.col(i);
    }
    const double norm = w.norm();
    h(k + 1, k) = norm;
    if (norm > 0) basis.col(k + 1) = w / norm;
    RotateHessenbergColumn(k, &h, &cs, &sn, &g);
    ++k;
    // norm == 0: the Krylov space is invariant and holds the exact solution.
    if (std::abs(g[k]) <= target || norm == 0) break;
  }
  const Eigen::VectorXd y = h.topLeftCorner(k, k).triangularView<Eigen::Upper>().solve(g.head(k));
  *x += basis.leftCols(k) * y;
  return k;
}

}  // namespace

GmresResult Gmres(const LinearOperator& apply, const Eigen::VectorXd& b, const Eigen::VectorXd& x0,
                  const GmresOptions& options) {
  if (b.norm() == 0) {
    GmresResult result;
    result.x = Eigen::VectorXd::Zero(b.size());
    result.converged = true;
    return result;
  }
  return RunGmresRestarts(
      apply, b, x0.size() == 0 ? Eigen::VectorXd::Zero(b.size()) : x0, options,
      [](Eigen::VectorXd*, Eigen::VectorXd*) {},
      [&](const Eigen::VectorXd& r, double beta, double target, int budget, Eigen::VectorXd* x) {
        return GmresCycle(apply, r, beta, target, budget, x);
      });
}

}  // namespace seqflow

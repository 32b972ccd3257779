// Restarted GMRES(m) for A x = b with A given only as a product (Saad & Schultz 1986).
//
// Each cycle builds an orthonormal Krylov basis V_k of span{r, A r, …, A^(k-1) r},
// r = b − A x, by Arnoldi with modified Gram–Schmidt (A V_k = V_k+1 H̄_k), and takes the
// x + V_k y minimising ‖b − A(x + V_k y)‖ = ‖β e_1 − H̄_k y‖, the small least-squares problem
// solved by Givens rotations as the basis grows (whose last rotated entry is the residual
// norm, so convergence is known without forming x). After m steps the cycle restarts from the
// new x, bounding memory at (m + 1) vectors. Convergence is declared on the true residual
// ‖b − A x‖ <= rel_tol ‖b‖, recomputed at each restart.
//
// Pure function; the operator may use threads. REQUIRES: apply maps [n] to [n];
// x0 empty (meaning 0) or of size n; restart >= 1.
#pragma once

#include <Eigen/Dense>
#include <functional>

namespace seqflow {

using LinearOperator = std::function<Eigen::VectorXd(const Eigen::VectorXd&)>;

struct GmresOptions {
  int restart = 50;     // m, Krylov vectors per cycle
  int max_iter = 1000;  // products with A, over all cycles
  double rel_tol = 1e-12;
};

struct GmresResult {
  Eigen::VectorXd x;
  int iterations = 0;            // products with A (not counting residual recomputations)
  double relative_residual = 0;  // ‖b − A x‖ / ‖b‖, true residual
  bool converged = false;
};

GmresResult Gmres(const LinearOperator& apply, const Eigen::VectorXd& b, const Eigen::VectorXd& x0,
                  const GmresOptions& options);

}  // namespace seqflow

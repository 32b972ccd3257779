// GMRES that keeps the search directions of its earlier solves with the same operator A and starts
// every later solve from them (GCRO with the whole earlier Krylov spaces recycled: de Sturler,
// "Truncation strategies for optimal Krylov subspace methods", SIAM J. Numer. Anal. 1999; Parks
// et al., "Recycling Krylov subspaces for sequences of linear systems", SIAM J. Sci. Comput. 2006).
//
// It keeps Z, W [n x k] with A Z = W, W orthonormal. A solve of A x = b first takes the best x
// in span Z, x = Z Wᵀ b (no product), then runs GMRES cycles on the projected operator
// (I − W Wᵀ) A from the residual, which is orthogonal to W: each new Arnoldi vector is
// orthogonalised against W as well (B = Wᵀ A V is kept), and a cycle's correction V y is
// completed by − Z B y, so the residual it minimises is the true one. After each cycle its m
// directions join Z, W: with H̄ = Q R (thin QR of the (m+1) x m Hessenberg matrix),
//   Z += (V_m − Z B) R⁻¹,   W += V_m+1 Q      (then A Z_new = W_new, and W_new ⊥ W),
// while k stays within `max_kept`. So the restarts of one solve deflate each other (GCRO), and a
// later right-hand side — the next Newton step of a chord corrector, whose operator is fixed over
// the step — starts with all the directions GMRES has needed so far, which are those of the
// operator's small singular values that make it slow.
// Convergence, as gmres.h: the residual ‖b − A x‖ <= rel_tol ‖b‖, recomputed at each cycle's
// start (one product, not counted in `iterations`) and then rid of its part along W in span Z.
//
// Not thread-safe (a solve extends the kept directions); the operator may use threads.
// REQUIRES: apply maps [n] to [n]; options.restart >= 1.
#pragma once

#include <Eigen/Dense>

#include "nodes/numerics/gmres.h"

namespace seqflow {

class RecyclingGmres {
 public:
  RecyclingGmres(LinearOperator apply, Eigen::Index n, int max_kept);

  // A x = b from x0 (empty: the best point of span Z, Z Wᵀ b); REQUIRES: b, and x0 unless empty,
  // of size n.
  GmresResult Solve(const Eigen::VectorXd& b, const Eigen::VectorXd& x0, const GmresOptions& options);

  int kept() const { return static_cast<int>(z_.cols()); }

 private:
  // One cycle from x with residual r ⊥ W (‖r‖ = beta): adds the correction to x, keeps the cycle's
  // directions, returns the products used.
  int Cycle(const Eigen::VectorXd& r, double beta, double target, int max_steps, Eigen::VectorXd* x);

  LinearOperator apply_;
  Eigen::Index n_;
  int max_kept_;
  Eigen::MatrixXd z_;  // [n x k]
  Eigen::MatrixXd w_;  // [n x k] A Z, orthonormal columns
};

}  // namespace seqflow

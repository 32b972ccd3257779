// The linear algebra a normal-flow tracker needs at one point y = (x, λ) ∈ R^(n+1) of a homotopy
// ρ: R^(n+1) → R^n (λ last, as z = (Θ̃, λ) in path_tracker.h), given the [n x (n+1)] Jacobian
// Dρ(y) of full rank n:
//   Tangent:        the unit t spanning ker Dρ, oriented so t · orient >= 0;
//   SolveAugmented: Δ with Dρ Δ = r and cᵀ Δ = s. With c = t and s = 0 this is the
//                   minimum-norm solution Dρ⁺ r (the one orthogonal to the kernel), the
//                   normal-flow Newton step of HOMPACK's STEPNF; with c = e_λ, s = 0 it is the
//                   Newton step at fixed λ.
// Two back ends behind one interface, so a map chooses the one its size calls for:
//   dense (small n): Dρᵀ = Q [R; 0] by Householder QR, t = ±Q e_n+1,
//     Δ = Q w, w_1..n = R⁻ᵀ r, w_n+1 = (s − (Qᵀc)_1..nᵀ w_1..n) / (Qᵀc)_n+1;
//   Krylov (large n, products only): GMRES (gmres.h) on the bordered [Dρ; cᵀ] Δ = [r; s], and
//     on [Dρ; orientᵀ] w = e_n+1 for the tangent t = w / ‖w‖; with an optional right
//     preconditioner P⁻¹ on R^(n+1) (GMRES on [Dρ; cᵀ] P⁻¹ u = rhs, Δ = P⁻¹ u: the residual it
//     declares converged is the true one of Δ).
// A rank-deficient Dρ (or a c in its row space) gives non-finite results; callers check.
// Thread safety: immutable after construction (but see `recycle` below); products may use threads
// inside `apply`.
#pragma once

#include <Eigen/Dense>
#include <memory>

#include "nodes/numerics/gmres.h"

namespace seqflow {

class CurveLinearization {
 public:
  virtual ~CurveLinearization() = default;
  // REQUIRES: orient of size n + 1.
  virtual Eigen::VectorXd Tangent(const Eigen::VectorXd& orient) const = 0;
  // REQUIRES: c of size n + 1, r of size n.
  virtual Eigen::VectorXd SolveAugmented(const Eigen::VectorXd& c, const Eigen::VectorXd& r, double s) const = 0;
  // sign det [Dρ; tᵀ] (+1 or −1) for a unit kernel vector t, 0 when the back end cannot tell.
  // Along a regular zero curve traversed one way it never changes, through folds included
  // (Allgower & Georg, §2.1): a change means the tracker jumped onto a stretch traversed the
  // other way.
  virtual int OrientationSign(const Eigen::VectorXd& t) const = 0;
};

// REQUIRES: jacobian is [n x (n+1)], n >= 1.
std::unique_ptr<CurveLinearization> DenseCurveLinearization(const Eigen::MatrixXd& jacobian);

// `apply` computes Dρ d for d of size n + 1 (result of size n); `precondition` (optional, empty
// for none) maps R^(n+1) to R^(n+1); `solve_rel_tol` > 0 replaces options.rel_tol in
// SolveAugmented (an inexact Newton step), the tangent keeping options.rel_tol. `recycle` > 0
// (ignored with a preconditioner): GMRES recycles up to that many directions
// (recycling_gmres.h) between its restarts, and between the SolveAugmented calls with the same
// row c (a chord corrector's Newton steps), which makes SolveAugmented not thread-safe.
std::unique_ptr<CurveLinearization> KrylovCurveLinearization(LinearOperator apply, Eigen::Index n,
                                                             const GmresOptions& options,
                                                             LinearOperator precondition = {},
                                                             double solve_rel_tol = 0, int recycle = 0);

}  // namespace seqflow

// Bound-constrained limited-memory quasi-Newton minimisation of an Objective over a box
// lower <= x <= upper, for small problems (2 to ~100 variables, each evaluation costly): the
// combination weights Γ of HySOL and logarithmic opinion pools, each in [0, 1], possibly with a
// Dirichlet-prior term -ξ'·Σ log γ_k that makes f = +inf on the faces γ_k = 0.
//
// Method: projected quasi-Newton with an active set, the two-metric projection of Bertsekas
// (1982, "Projected Newton methods for optimization problems with simple constraints", SIAM J.
// Control Optim. 20(2)) with an L-BFGS metric, as in PQN-LBFGS (Kim, Sra & Dhillon 2010,
// "Tackling box-constrained optimization via a new projected quasi-Newton approach", SIAM J. Sci.
// Comput. 32(6)). Each iteration at x with gradient g:
//   1. Binding set B = {i : x_i <= l_i + ε_i and g_i > 0, or x_i >= u_i - ε_i and g_i < 0},
//      ε_i = 1e-10·max(1, |bound|): the variables the gradient pushes against their bound.
//      The others are free (F).
//   2. d_B = 0 and d_F = -H_F g_F, H_F the L-BFGS inverse-Hessian approximation of the reduced
//      problem: the two-loop recursion (Nocedal & Wright 2006, Alg. 7.4) over the stored pairs
//      restricted to F, skipping pairs with s_Fᵀy_F <= 1e-8‖s_F‖‖y_F‖ (so H_F stays positive
//      definite). Once the active set settles, y_F ≈ ∇²_FF f s_F is the secant pair of the face
//      the iterates move in, as in L-BFGS-B's subspace step (Byrd, Lu, Nocedal & Zhu 1995).
//      Keeping d_B = 0 is what makes the projected step a descent step for a non-diagonal
//      metric (the point of Bertsekas 1982).
//   3. If gᵀd >= 0 (round-off in the history), forget the pairs and use d_F = -g_F.
//   4. Backtracking Armijo search along the projected path x(α) = P(x + α d):
//      f(x(α)) <= f(x) + 1e-4·gᵀ(x(α) - x), or, where f changed by less than 1e-10·|f| (round-off
//      near a minimiser), the gradient-only approximate Armijo test of Hager & Zhang (2005).
//      It starts from α = 1, or, with no usable pairs, from the α whose first move is
//      min(1, ‖u - l‖_inf) in inf-norm (a bare gradient carries no step scale). A non-finite f
//      or gradient at a trial point counts as "too long" and the search backtracks, so barrier
//      terms that are +inf on a face are fine. A failed search with quasi-Newton pairs is
//      retried once along -g_F with the memory cleared.
//   5. Store (s, y) = (x⁺ - x, g⁺ - g) only when sᵀy > 1e-8‖s‖‖y‖ (the BFGS update keeps H
//      positive definite only for positive curvature; nearly orthogonal pairs blow it up).
//
// Stopping: ‖P(x - g) - x‖_inf <= gradient_tolerance (the projected gradient of L-BFGS-B, zero
// exactly at KKT points) is kGradient; (f_prev - f) / max(1, |f|) < delta after an iteration is
// kConverged (delta = 0 turns this test off); then max_iterations, or a line search that cannot
// decrease f (kLineSearchFailed). A non-finite f or gradient at the projected start point is a
// Status::Numerical error.
//
// LBFGS++'s L-BFGS-B was measured against this (bench/kernels/box_fit_bench, bench/RESULTS.md)
// and not adopted: its line search cannot back off from f = +inf (the Γ prior on a face), it
// throws where this returns a stop reason, and it stalls short of tight tolerances.
//
// Dense n-vectors throughout: the work per iteration is O(m n), negligible next to an evaluation.
// Thread safety: one call at a time per Objective; no state outside the call.
#pragma once

#include <Eigen/Dense>
#include <string>

#include "engine/base/status.h"
#include "nodes/optim/objective.h"

namespace seqflow {

struct BoxLbfgsOptions {
  int memory = 10;  // m correction pairs
  int max_iterations = 500;
  double gradient_tolerance = 1e-6;  // ‖projected gradient‖_inf stop
  double delta = 1e-10;              // relative decrease (f_prev - f) / max(1, |f|) stop; 0: off
  int max_backtracks = 40;           // step reductions per line search
};

enum class BoxLbfgsStop { kGradient, kConverged, kMaxIterations, kLineSearchFailed };
const char* BoxLbfgsStopName(BoxLbfgsStop s);  // "gradient", "converged", ...

struct BoxLbfgsResult {
  BoxLbfgsStop stop = BoxLbfgsStop::kMaxIterations;
  double objective = 0;  // f(x) at the returned x
  int iterations = 0;    // accepted steps
  int evaluations = 0;   // Evaluate calls
  std::string message;   // why it stopped, for the node's error or log
};

// Minimises f over lower <= x <= upper from x, which is projected into the box first and is
// updated in place to the last accepted iterate (always inside the box).
// Bounds may be ±infinity.
// REQUIRES: lower.size() == upper.size() == x.size(), lower <= upper, options.memory >= 1.
Result<BoxLbfgsResult> MinimizeInBox(Objective& f, Eigen::VectorXd& x, const Eigen::VectorXd& lower,
                                     const Eigen::VectorXd& upper, const BoxLbfgsOptions& options);

}  // namespace seqflow

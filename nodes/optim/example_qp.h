// The per-example subproblem of the hidden Markov SVM's working-set method (Altun et al. 2003;
// Brefeld et al. 2005, Eq. 21 with 26 or 27, Tables 2-3): with the other examples' multipliers
// fixed, the multipliers α_j ≥ 0 of example i's pseudo sequences ȳ_j solve
//   min_α  ½ αᵀ Q α − bᵀ α   s.t.  α ≥ 0  and, for the 1-norm machine, Σ_j α_j ≤ cap,
// with Q_jk = ⟨ΔΦ_j, ΔΦ_k⟩, ΔΦ_j = Φ(x_i, y_i) − Φ(x_i, ȳ_j), and b_j = 1 − ⟨w_{−i}, ΔΦ_j⟩. The
// 1-norm machine's cap is C (labeled) or min{γ^v̄, 1} C_u C (unlabeled, Eq. 26); the 2-norm machine
// has no cap and adds 1/cap to Q's diagonal instead (Eq. 27) — the caller does that.
//
// Solver (ours): with a cap, a slack α_0 = cap − Σα ≥ 0 (Q_0· = 0, b_0 = 0) turns the feasible set
// into the simplex {β ≥ 0, Σβ = cap}, solved by SMO steps on the maximal violating pair (the
// coordinate of least gradient gains the mass of the support coordinate of largest gradient, by
// the exact minimiser along that direction); without a cap, exact coordinate descent on α ≥ 0.
// Both stop when the KKT conditions hold to `tolerance`:
//   α ≥ 0, Σα ≤ cap, ∃ μ ≥ 0: g_j + μ ≥ 0 ∀j, α_j > 0 ⇒ g_j + μ = 0, μ (cap − Σα) = 0,
// g = Qα − b (μ = 0 without a cap). Q may be singular (collinear ΔΦ); the problem stays convex.
// Thread safety: pure function.
#pragma once

#include <Eigen/Dense>
#include <limits>

#include "engine/base/status.h"

namespace seqflow {

struct ExampleQpOptions {
  double tolerance = 1e-10;  // on the KKT violation, relative to max(1, max |b|)
  int max_iterations = 1000000;
};

// The largest natural residual of the KKT conditions above at α: max_j |min(α_j, g_j + μ)| and
// |min(cap − Σα, μ)| with μ = max(0, −min_j g_j) (0 without a cap); 0 exactly at the solution.
double ExampleQpKktViolation(const Eigen::MatrixXd& Q, const Eigen::VectorXd& b, double cap,
                             const Eigen::VectorXd& alpha);

// The minimiser, starting from `start` (projected onto the feasible set; empty: 0).
// Status::Invalid on mismatched sizes, a negative cap or a non-symmetric Q; Status::Numerical on
// non-finite input or when max_iterations pass without reaching the tolerance.
// cap = +inf: no sum constraint.
Result<Eigen::VectorXd> SolveExampleQp(const Eigen::MatrixXd& Q, const Eigen::VectorXd& b, double cap,
                                       const Eigen::VectorXd& start, const ExampleQpOptions& options = {});

}  // namespace seqflow

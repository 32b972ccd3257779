// The largest eigenvalue of a symmetric operator by Lanczos with full reorthogonalisation
// (Golub & Van Loan, §10.1; Parlett, "The Symmetric Eigenvalue Problem", ch. 13).
//
// k steps build an orthonormal basis Q_k of the Krylov space span{q, S q, …, S^(k-1) q} with
// S Q_k = Q_k T_k + β_k q_k+1 e_kᵀ, T_k tridiagonal; the largest eigenpair (θ, y) of T_k gives
// the Ritz pair (θ, Q_k y), whose residual ‖S Q_k y − θ Q_k y‖ = β_k |y_k| is known without
// another product. Converged when that residual is <= rel_tol |θ| (or β_k = 0: the Krylov
// space is invariant). Unlike power iteration, whose error falls like (μ_2 / μ_1)^k, Lanczos
// resolves a largest eigenvalue that is nearly tied with the next one in few steps — the usual
// situation near a fold of the homotopy path, where μ_max is what is recorded. Every new vector
// is orthogonalised against the whole basis (twice), so no ghost eigenvalues appear; the memory
// is (max_iter + 1) vectors.
// Only the eigenvalue may be wanted (μ_max along the path, warm-started from the previous point's
// vector): its error is second order in the vector's, |θ − μ| <~ r² / gap with r the residual
// and gap = θ − θ_2 the distance to the next Ritz value (Parlett, ch. 11), so `value_rel_tol`
// stops as soon as that estimate is <= value_rel_tol |θ|, long before r itself is small. What
// the caller decides with θ stays exact: Ritz values never exceed μ_max (interlacing), and an
// eigenvalue lies within r of θ (Kahan), so with a `threshold` the early stop waits until
// θ > threshold or θ + r < threshold — near the threshold (a fold, λ μ_max ≈ 1) Lanczos runs on
// to the residual test as without the option.
// Spectra's restarted SymEigsSolver was measured against this (bench/kernels/top_eigen_bench,
// bench/RESULTS.md): it tests convergence only after building ncv vectors, so along the path,
// where warm starts converge in ~20 products, it needed 14-29% more products and was slower.
//
// Pure function; the operator may use threads. REQUIRES: apply symmetric, [n] to [n];
// start non-zero of size n.
#pragma once

#include <Eigen/Dense>
#include <limits>

#include "nodes/numerics/gmres.h"

namespace seqflow {

struct LanczosOptions {
  int max_iter = 100;
  double rel_tol = 1e-10;    // on the Ritz residual r
  double value_rel_tol = 0;  // > 0: also on the eigenvalue's error estimate min(r, r² / gap)
};

struct LanczosResult {
  double value = 0;        // the largest Ritz value θ
  Eigen::VectorXd vector;  // its unit Ritz vector
  int iterations = 0;      // products with the operator
  bool converged = false;
};

// `threshold`: the value whose side of μ_max the caller needs (see value_rel_tol); infinity for
// none.
LanczosResult LargestEigenpair(const LinearOperator& apply, const Eigen::VectorXd& start, const LanczosOptions& options,
                               double threshold = std::numeric_limits<double>::infinity());

}  // namespace seqflow

// Krylov directions carried from one linear system to the next along a path, as a right
// preconditioner that costs no product: recycling across the tracker's points and Newton
// iterates without the k products of A_new U that GCRO-DR pays at every new operator (Parks et
// al., SIAM J. Sci. Comput. 2006; the stale-space variant: Soodhalter, de Sturler & Kilmer,
// "A survey of subspace recycling iterative methods", GAMM-Mitt. 2020).
//
// It keeps Z, W [n x k] with A_i Z_j = W_j for the operator A_i of the solve that found column j,
// W orthonormal, and applies
//   P v = v + (Z − W) Wᵀ v.
// For the operator A that found them A P = W Wᵀ + A (I − W Wᵀ): in the basis [W, W⊥] block upper
// triangular, eigenvalues 1 (k times) and those of A compressed to W⊥ — the directions GMRES had
// to find (those of I − λJ's eigenvalues near 0 near a fold, where μ_max(J) λ → 1) are taken out
// of its spectrum, as GCRO's projected operator takes them out. For a nearby operator A' (the
// next Newton iterate, the next point: J changes little) A' P = A P + (A' − A) P is a perturbation
// of that. Right preconditioning keeps GMRES's residual the true one, so a stale space can only
// cost products, never accuracy.
// `Add` takes a solve's own pairs (exact for its operator) and keeps them first; the older pairs
// are made orthogonal to them (W_old − W_new C, Z_old − Z_new C with C = W_newᵀ W_old, then
// re-orthonormalised, the same combination on Z) and the oldest dropped beyond `max_kept`.
//
// A stale space can also make GMRES worse than none (a Z column of a direction that was nearly
// singular for the old operator and is not for the new one makes A' P far from normal); the
// caller that sees a solve stall clears it (curve_linearization.h).
//
// Not thread-safe; Apply is const and may run concurrently with other Apply calls.
// REQUIRES: pairs of size n; max_kept >= 1.
#pragma once

#include <Eigen/Dense>

namespace seqflow {

class DeflationSpace {
 public:
  DeflationSpace(Eigen::Index n, int max_kept);

  Eigen::VectorXd Apply(const Eigen::VectorXd& v) const;         // P v (v itself when empty)
  Eigen::MatrixXd ApplyColumns(const Eigen::MatrixXd& v) const;  // P v column by column

  // z, w [n x m] with A z = w for the latest operator A, w with orthonormal columns; only the
  // first max_kept columns are kept.
  void Add(const Eigen::MatrixXd& z, const Eigen::MatrixXd& w);

  void Clear();  // forgets every pair

  int kept() const { return static_cast<int>(w_.cols()); }
  const Eigen::MatrixXd& z() const { return z_; }
  const Eigen::MatrixXd& w() const { return w_; }

 private:
  int max_kept_;
  Eigen::MatrixXd z_;          // [n x k]
  Eigen::MatrixXd w_;          // [n x k] orthonormal
  Eigen::MatrixXd z_minus_w_;  // [n x k] Z − W, what Apply multiplies
};

}  // namespace seqflow

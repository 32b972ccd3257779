// Least squares on the probability simplex: the per-word QP of Marinho et al. (2016), Eq. 14 and
// its supervised interpolation Eq. 26,
//   min_γ (1 - λ) ||q - R γ||² + λ ||γ - γ'||²   s.t.  1ᵀγ = 1, γ >= 0,
// written through the K x K Gram matrix as the QP
//   min_γ ½ γᵀ A γ - βᵀ γ,   A = (1 - λ) RᵀR + λ I,   β = (1 - λ) Rᵀq + λ γ'
// (the objective divided by 2, constant dropped). A is shared by every word, so SimplexQp is
// built once from A and then solves one β at a time: the cost per word is K-dimensional, not C.
//
// Solver: FISTA (Beck & Teboulle 2009) with step 1/L, L = λ_max(A), the exact Euclidean
// projection onto the simplex by Michelot's (1986) shrinking support, and
// gradient-based adaptive restart (O'Donoghue & Candès 2015). It stops when the fixed-point
// residual r(γ) = ||γ - Π(γ - ∇f(γ)/L)||_∞ is <= tol; r = 0 exactly at a KKT point (∇f_i = ν on
// the support, >= ν off it), so r is the KKT residual in the units of γ. Once FISTA's support
// holds between two residual tests, the exact minimiser on that face (A_FF by Cholesky, the sum
// constraint by its multiplier) is tried and returned when its residual passes: the active-set
// finish that spares FISTA's slow last digits.
//
// Pure: no I/O, no allocation per Solve after construction. Thread safety: Solve is const but
// uses the object's scratch space: one SimplexQp per thread.
#pragma once

#include <Eigen/Dense>

#include "engine/base/status.h"

namespace seqflow {

struct SimplexQpOptions {
  int max_iter = 5000;
  double tol = 1e-9;  // on the fixed-point (KKT) residual, in units of γ
};

struct SimplexQpStats {
  int iterations = 0;
  double residual = 0;  // r(γ) at the returned point
  bool converged = false;
};

// Π(u): the Euclidean projection of u onto {x : 1ᵀx = 1, x >= 0}. REQUIRES: u finite, u.size() >= 1.
void ProjectOntoSimplex(const Eigen::Ref<const Eigen::VectorXd>& u, Eigen::Ref<Eigen::VectorXd> x);

class SimplexQp {
 public:
  // Invalid unless A is square and K >= 1; Numerical if A is not finite or λ_max(A) <= 0.
  // A should be symmetric positive semi-definite (only its lower triangle is read for L).
  static Result<SimplexQp> Create(const Eigen::MatrixXd& A, SimplexQpOptions options = {});

  // Solves for `beta` starting from `x` (a warm start; any vector: it is projected first) and
  // leaves the solution in `x`. Numerical if beta is not finite or the iterates stop being
  // finite. Not converging within max_iter is not an error: the stats say so.
  Result<SimplexQpStats> Solve(const Eigen::Ref<const Eigen::VectorXd>& beta, Eigen::Ref<Eigen::VectorXd> x) const;

 private:
  SimplexQp(Eigen::MatrixXd a, double lipschitz, SimplexQpOptions options);
  // r(point) = ||point - Π(point - ∇f(point)/L)||_∞.
  double Residual(const Eigen::Ref<const Eigen::VectorXd>& beta, const Eigen::Ref<const Eigen::VectorXd>& point) const;
  // The minimiser of f on the face {x_i = 0, i ∉ face_} with 1ᵀx = 1, into face_point_; false when
  // A on the face is not positive definite or the minimiser has an entry <= 0.
  bool SolveOnFace(const Eigen::Ref<const Eigen::VectorXd>& beta) const;

  Eigen::MatrixXd a_;
  double lipschitz_;
  SimplexQpOptions options_;
  // Scratch for Solve (mutable: Solve is logically const).
  mutable Eigen::VectorXd y_, previous_, gradient_, step_, projected_, face_point_, face_beta_, face_ones_;
  mutable Eigen::MatrixXd face_factor_;
  mutable Eigen::Array<Eigen::Index, Eigen::Dynamic, 1> face_, previous_face_;  // [K], the first *_size_ used
  mutable Eigen::Index face_size_ = 0, previous_face_size_ = -1;
};

}  // namespace seqflow

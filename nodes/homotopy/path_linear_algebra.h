// The linear algebra of one point z = (Θ̃, λ) of the EM_λ fixed-point curve: the two back ends
// (dense and matrix-free) of the path tracker behind one interface.
//
// F(Θ̃, λ) = Θ̃ − (1 − λ) EM_0 − λ EM_1(Θ̃) (Eq. 7) has the [P x (P+1)] derivative
//   DF = [I − λJ, EM_0 − EM_1(Θ̃)],   J = ∂EM_1/∂Θ̃ (jacobian.h),
// and a linearisation answers the three questions a predictor–corrector tracker asks:
//   Tangent:        the unit η spanning ker DF (Algorithm 1, line 8), oriented so η·η_old > 0
//                   (lines 9–11);
//   SolveAugmented: Δ with DF Δ = r and ηᵀ Δ = s, the Newton step of the augmented system
//                   F(z) = 0, ηᵀ(z − z_pred) = 0 (the corrector; not in the paper);
//   Spectrum:       μ_max, the largest eigenvalue of J, and how many eigenvalues μ have passed
//                   λ μ = 1 (each flips the sign of det(I − λJ), §5.2 "monotone").
// Dense (small P): DFᵀ = Q [R; 0] by Householder QR, so η = ±Q e_P+1 and
//   Δ = Q w,  w_1..P = R⁻ᵀ r,  w_P+1 = (s − (Qᵀη)_1..Pᵀ w_1..P) / (Qᵀη)_P+1;
//   the spectrum from all eigenvalues of the symmetric S = Gᵀ (Cov/|U|) G (jacobian.h), which
//   has the non-zero eigenvalues of J, when P <= kDenseEigenMaxP. Memory O(P²), time O(P³).
// Matrix-free: products only (J v by tangent-linear forward-backward, O(Σ T K²) each).
//   The tangent solves the bordered system [DF; η_oldᵀ] w = [0; 1] by GMRES, η = w / ‖w‖
//   (η_oldᵀ w = 1 > 0 orients it); SolveAugmented runs GMRES on [DF; ηᵀ].
//   μ_max by Lanczos on S v = Gᵀ (Cov/|U|) G v (lanczos.h), started from the previous point's
//   Ritz vector. (Power iteration on J, warm-started, is the simpler choice, but its error
//   falls like (μ_2/μ_1)^k and near folds, where μ_max matters, μ_2/μ_1 → 1: it disagreed with
//   the dense eigenvalues by 3e-4 after 300 iterations on the test problem.)
//
// Thread safety: one linearisation belongs to one thread at a time (the dense one factors
// lazily); J products may use `threads` internally.
#pragma once

#include <Eigen/Dense>
#include <memory>

#include "nodes/homotopy/jacobian.h"
#include "nodes/numerics/gmres.h"
#include "nodes/numerics/lanczos.h"

namespace seqflow {

enum class PathSolver { kDense, kMatrixFree };

// Above this P the dense back end finds μ_max by Lanczos too (a full symmetric eigensolver is
// O(P³) with a large constant) and counts only μ_max's crossing.
inline constexpr int kDenseEigenMaxP = 1500;

struct LinearSolveOptions {
  GmresOptions gmres{60, 2000, 1e-12};
  LanczosOptions lanczos{100, 1e-10};
};

struct JacobianSpectrum {
  double mu_max = 0;    // largest eigenvalue of J
  int num_crossed = 0;  // eigenvalues μ of J with λ μ > 1; det(I − λJ) has sign (−1)^num_crossed
  bool exact = false;   // true when every eigenvalue was computed; else num_crossed is 0 or 1
  int iterations = 0;   // Lanczos products used (0 when exact)
};

class PathLinearization {
 public:
  PathLinearization(EmJacobian em, double lambda, const Eigen::VectorXd& em0);
  virtual ~PathLinearization() = default;

  const EmJacobian& em() const { return em_; }
  double lambda() const { return lambda_; }
  const Eigen::VectorXd& residual() const { return residual_; }      // F(z) [P]
  const Eigen::VectorXd& dF_dlambda() const { return dF_dlambda_; }  // EM_0 − EM_1(Θ̃) [P]
  Eigen::VectorXd ApplyDF(const Eigen::VectorXd& d) const;           // DF d, d of size P + 1

  // REQUIRES: eta_old of size P + 1, non-zero.
  virtual Eigen::VectorXd Tangent(const Eigen::VectorXd& eta_old) = 0;
  // Non-finite when the matrix-free solve did not reach its tolerance within max_iter.
  // REQUIRES: eta of size P + 1 and not in the row space of DF (e.g. a tangent); r of size P.
  virtual Eigen::VectorXd SolveAugmented(const Eigen::VectorXd& eta, const Eigen::VectorXd& r, double s) = 0;
  // `warm` is the Lanczos start (S's top eigenvector at the previous point): read when of size P,
  // overwritten with the new Ritz vector.
  virtual JacobianSpectrum Spectrum(Eigen::VectorXd* warm) = 0;

 private:
  EmJacobian em_;
  double lambda_;
  Eigen::VectorXd residual_;
  Eigen::VectorXd dF_dlambda_;
};

// The linearisation of F at (em.theta_tilde(), lambda). REQUIRES: em0 of size P.
std::unique_ptr<PathLinearization> Linearize(PathSolver solver, EmJacobian em, double lambda,
                                             const Eigen::VectorXd& em0, const LinearSolveOptions& options);

// The Lanczos start for S of size `size`: `warm` (the previous point's Ritz vector) plus 1e-2 of
// a fixed vector when warm has that size and is non-zero, else the fixed vector alone.
Eigen::VectorXd LanczosStart(Eigen::Index size, const Eigen::VectorXd& warm);

// μ_max by Lanczos on the symmetric [size x size] S (`apply_s` computes S v), from `warm` as above.
JacobianSpectrum LanczosSpectrum(const LinearOperator& apply_s, Eigen::Index size, double lambda,
                                 const LanczosOptions& options, Eigen::VectorXd* warm);

}  // namespace seqflow

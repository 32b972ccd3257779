// EM_1 and its Jacobian J = ∂EM_1/∂Θ̃ at one point Θ̃ (Haffari & Sarkar 2008, Eq. 8).
//
// EM_1(Θ̃) = (1/|U|) Σ_x E_{P(y|x,θ)}[Count] depends on Θ̃ through log θ, and
//   ∂E[Count] / ∂log θ(ω') = Cov[Count, Count(ω')]                  (exponential family),
//   ∂log θ_m(ω) / ∂Θ̃_m(α) = δ_ωα / Θ̃_m(α) − 1 / Σ_β Θ̃_m(β)          (θ = Θ̃ / row sum),
// so J = (1/|U|) Σ_x Cov[Count] · H with H block diagonal over the free multinomials,
//   H_m = diag(1 / Θ̃_m) − 1 1ᵀ / Σ_α Θ̃_m(α).
// (The paper prints diag(Θ̃_m); the reciprocal is what central differences of EM_1 confirm, see
// tests/nodes/homotopy/jacobian_test.cpp.) H_m is symmetric positive semi-definite (Cauchy–
// Schwarz), with null vector Θ̃_m, so J = Cov H is self-adjoint in the semi-inner product
// ⟨a, b⟩_H = aᵀ H b, and its eigenvalues are real and >= 0. To compute them with symmetric
// methods, factor H = G Gᵀ with G = blockdiag(D_m^-½ Π_m), D_m = diag(Θ̃_m), Π_m = I − q_m q_mᵀ,
// q_m = (Θ̃_m / Σ_α Θ̃_m(α))^½ (a unit vector, so Π_m is a projector and
// D_m^-½ Π_m D_m^-½ = H_m). Then J = (Cov/|U|) G Gᵀ and the symmetric positive semi-definite
//   S = Gᵀ (Cov/|U|) G
// have the same non-zero eigenvalues (AB and BA do).
//
// Thread safety: EmJacobian is immutable after construction (see CountCovariance).
// REQUIRES: theta_tilde.size() == P, every entry > 0; unlabeled non-empty and outliving the
// object; `frozen` supplies the frozen blocks of the model.
#pragma once

#include <Eigen/Dense>

#include "nodes/homotopy/count_covariance.h"
#include "nodes/semi_supervised/pom_layout.h"

namespace seqflow {

// H v, block by block: (H v)_m = v_m ⊘ Θ̃_m − (Σ_α v_m(α) / Σ_α Θ̃_m(α)) 1.
Eigen::VectorXd ApplyH(const PomLayout& layout, const Eigen::VectorXd& theta_tilde, const Eigen::VectorXd& v);

// M H for a [n x P] matrix M (columns combined block by block), in O(n P).
Eigen::MatrixXd MultiplyH(const PomLayout& layout, const Eigen::VectorXd& theta_tilde, const Eigen::MatrixXd& m);

// G v = D^-½ Π v and Gᵀ v = Π D^-½ v, block by block (see above).
Eigen::VectorXd ApplyG(const PomLayout& layout, const Eigen::VectorXd& theta_tilde, const Eigen::VectorXd& v);
Eigen::VectorXd ApplyGt(const PomLayout& layout, const Eigen::VectorXd& theta_tilde, const Eigen::VectorXd& v);

// Gᵀ C G for a symmetric [P x P] C, in O(P²).
Eigen::MatrixXd SymmetrizeDense(const PomLayout& layout, const Eigen::VectorXd& theta_tilde, const Eigen::MatrixXd& c);

class EmJacobian {
 public:
  EmJacobian(const PomLayout& layout, const HmmParams& frozen, const Eigen::VectorXd& theta_tilde,
             const IdSentences& unlabeled, int threads);

  const PomLayout& layout() const { return covariance_.layout(); }
  const Eigen::VectorXd& theta_tilde() const { return theta_tilde_; }
  const HmmParams& model() const { return covariance_.model(); }  // θ(Θ̃)
  const CountCovariance& covariance() const { return covariance_; }
  const Eigen::VectorXd& em1() const { return em1_; }  // [P] EM_1(Θ̃)
  double mean_log_likelihood() const;                  // (1/|U|) Σ_x log P(x | θ)

  Eigen::VectorXd Apply(const Eigen::VectorXd& v) const;           // J v = (1/|U|) Cov (H v)
  Eigen::MatrixXd Dense() const;                                   // J [P x P]
  Eigen::VectorXd ApplySymmetric(const Eigen::VectorXd& v) const;  // S v = Gᵀ (Cov/|U|) G v

 private:
  Eigen::VectorXd theta_tilde_;
  CountCovariance covariance_;
  Eigen::VectorXd em1_;
};

}  // namespace seqflow

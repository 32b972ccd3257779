// The EM_λ operator of a semi-supervised HMM classifier (Ji, Watson & Carin, Eq. 13–18) and its
// Jacobians, on the stacked unnormalised parameters Θ̃ of hmm_classifier.h.
//
// With L labeled sequences (x_i, y_i), U unlabeled x_j, Θ = Θ̃ normalised, r_jy = p(y | x_j, Θ)
// and n^y(x) = the expected counts of θ^y on x ([γ_1 (K), Σ_t ξ_t (K x K), Σ_t γ_t e_x_t (K x V)]):
//   EM_0(Θ)_y = (1/L) (Σ_{i: y_i = y} [1, n^y(x_i)] + ε 1)      supervised Baum-Welch counts
//   EM_1(Θ)_y = (1/U) (Σ_j r_jy [1, n^y(x_j)] + ε 1)              Eq. 13–16 at λ = 1
//   EM_λ = (1 − λ) EM_0 + λ EM_1;  H(λ, Θ̃) = Θ̃ − EM_λ(Θ) = 0    Eq. 18.
// ε (a Dirichlet pseudo-count on every entry, not in the paper; MAP instead of ML on both
// terms) keeps every fixed point inside the simplex: without it a symbol unseen in a class's few
// labeled sequences puts EM_0's fixed point on the boundary, and EM_1's often lies there too,
// where Θ̃ − EM_1 is not differentiable as a map of positive Θ̃ and the path cannot end.
//
// Jacobians ∂EM/∂Θ̃ by forward-mode differentiation of the forward-backward recurrences: unscaled
// (α_t = (Aᵀ α_t-1) ∘ b(x_t), β_T = 1/p, β_t = A (b(x_t+1) ∘ β_t+1)) where p(x | θ) >= 1e-150,
// else with Rabiner's scaling (α̂_t = (Aᵀ α̂_t-1) ∘ b(x_t) / c_t, β̂_t = A (b(x_t+1) ∘ β̂_t+1) / c_t+1,
// log p = Σ log c_t) — in dual numbers carrying ∂/∂θ^y for the D = K + K² + K V probabilities
// of one class: this gives g^y = ∂ log p(x|θ^y)/∂θ^y (Eq. 34–36) and N^y = ∂n^y/∂θ^y
// (Eq. 37–42) together. The posteriors couple the classes:
//   ∂r_jy/∂θ^y' = r_jy (δ_yy' − r_jy') g^y'_j,   ∂r_jy/∂w^y' = r_jy (δ_yy' − r_jy') / w^y',
// and ∂θ/∂Θ̃ = (I − θ 1ᵀ) / ΣΘ̃ per multinomial (Eq. 43). D is at most kMaxClassDerivatives.
//
// Pure function: no I/O; sequences are processed on `threads` in fixed shards reduced in shard
// order, so results are bit-identical for any thread count.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <vector>

#include "engine/base/status.h"
#include "nodes/hmm/hmm_classifier.h"

namespace seqflow {

inline constexpr int kMaxClassDerivatives = 128;

struct ClassifierData {
  SymbolSequences labeled;
  std::vector<int32_t> labels;  // class of each labeled sequence, in [0, C)
  SymbolSequences unlabeled;
};

struct ClassifierEmOptions {
  double smoothing = 0.01;  // ε
  bool jacobians = false;
  bool need_em1 = true;  // false: skip the unlabeled pass (λ = 0 work)
  int threads = 1;
};

struct ClassifierEmValue {
  Eigen::VectorXd em0;                   // [P]
  Eigen::VectorXd em1;                   // [P] (empty when !need_em1)
  Eigen::MatrixXd em0_jacobian;          // [P x P] ∂EM_0/∂Θ̃ (when jacobians)
  Eigen::MatrixXd em1_jacobian;          // [P x P] ∂EM_1/∂Θ̃ (when jacobians and need_em1)
  double labeled_log_likelihood = 0;     // (1/L) Σ_i log w^y_i p(x_i | θ^y_i)
  double unlabeled_log_likelihood = 0;   // (1/U) Σ_j log Σ_y w^y p(x_j | θ^y)
  Eigen::MatrixXd unlabeled_posteriors;  // [U x C] r_jy
};

// EM_0 and EM_1 at Θ = Normalize(theta_tilde).
// REQUIRES: labels.size() == labeled.size() >= 1; labels in [0, C); symbols in [0, V); no empty
// sequence; unlabeled non-empty when need_em1. Invalid when D > kMaxClassDerivatives and
// jacobians; Numerical when Θ̃ leaves the simplex's cone or a sequence becomes impossible.
Result<ClassifierEmValue> EvaluateClassifierEm(const ClassifierLayout& layout, const Eigen::VectorXd& theta_tilde,
                                               const ClassifierData& data, const ClassifierEmOptions& options);

}  // namespace seqflow

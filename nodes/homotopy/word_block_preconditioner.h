// A preconditioner for I − λ J M, the Θ̃ block of the EM_λ curve's Jacobian (em_lambda_curve.h),
// built from quantities the linearisation already has: no extra forward-backward.
//
// Why it works: the large eigenvalues of J = (1/|U|) Cov H come from H's diag(1/Θ̃) at small
// emission parameters (a word rare in L has Θ̃ ≈ ε/|L|), and the covariance among the emissions
// of one word w is dominated by its own tokens: Σ_t (diag(p_t) − p_t p_tᵀ) over the tokens t of
// w, p_t [K] the token's state posterior. Replacing each p_t by the word's mean posterior
// E_w / c_w (E_w [K] the expected counts of w per state, c_w its count in U) gives
//   B_w = diag(E_w) − E_w E_wᵀ / c_w,
// and dropping H's rank-one per-state term and the coupling between words leaves K x K blocks
//   A_w = I − (λ / |U|) B_w diag(m_w / Θ̃_w)        (m the mask of M),
// one per word, on the emission coordinates; identity on the initial and transition blocks.
// Apply gives A⁻¹ v block by block (LU); a block whose LU is nearly singular (reciprocal
// condition below 1e-10: the preconditioner's own approximate fold) is left as identity.
//
// Thread safety: immutable after construction.
// REQUIRES: expected_counts [P] (Σ_U E[Count]), theta_tilde [P] > 0, mask [P],
// symbol_counts [V] (occurrences of each symbol in U), num_unlabeled >= 1.
#pragma once

#include <Eigen/Dense>
#include <vector>

#include "nodes/semi_supervised/pom_layout.h"

namespace seqflow {

// Occurrences of each symbol in U, [V].
Eigen::VectorXd SymbolCounts(const IdSentences& unlabeled, int num_symbols);

class WordBlockPreconditioner {
 public:
  WordBlockPreconditioner(const PomLayout& layout, const Eigen::VectorXd& theta_tilde, const Eigen::VectorXd& mask,
                          const Eigen::VectorXd& expected_counts, const Eigen::VectorXd& symbol_counts,
                          double num_unlabeled, double lambda);

  // A⁻¹ v on the Θ̃ coordinates; entries past P (the λ coordinate of a curve vector) are kept.
  // REQUIRES: v.size() >= P.
  Eigen::VectorXd Apply(const Eigen::VectorXd& v) const;

 private:
  PomLayout layout_;
  std::vector<Eigen::PartialPivLU<Eigen::MatrixXd>> blocks_;  // [V]
  std::vector<bool> active_;                                  // [V] false: identity
};

}  // namespace seqflow

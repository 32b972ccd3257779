// One sentence's scaled forward-backward tables, kept so that the covariance products of
// count_covariance.h can reuse them, and the tangent-linear (forward-mode) pass over them.
//
// Scaling (Rabiner 1989, §V.A), with E_t(j) = B(j, x_t):
//   α̂_0 = π ⊙ E_0 / c_0,   α̂_t = (Aᵀ α̂_t-1) ⊙ E_t / c_t,   c_t chosen so Σ_j α̂_t(j) = 1;
//   β̂_T-1 = 1,            β̂_t = A (E_t+1 ⊙ β̂_t+1) / c_t+1;
//   γ_t = α̂_t ⊙ β̂_t = P(y_t | x),  ξ_t(a, b) = α̂_t-1(a) A(a, b) W_t(b) = P(y_t-1 = a, y_t = b | x)
//   with W_t = E_t ⊙ β̂_t / c_t,  and log P(x) = Σ_t log c_t.
//
// Tangent-linear pass. Moving the log-parameters by a direction u = (u_π, U_A, U_B),
// log θ(ω) → log θ(ω) + ε u(ω), multiplies P(x, y) by exp(ε u·Count(x, y)), so
//   d/dε E[Count] |_ε=0 = Cov_{P(y|x)}[Count, Count] u            (exponential-family identity),
// the matrix-free covariance product of Eq. 8. Differentiating the scaled recurrences with the
// scales c_t held at their base values (ȧ = dα / C_t, ḃ = dβ / D_t in the scaling of α̂, β̂):
//   ȧ_0 = α̂_0 ⊙ (u_π + U_B(:, x_0)),
//   ȧ_t = [Aᵀ ȧ_t-1 + (A ⊙ U_A)ᵀ α̂_t-1] ⊙ E_t / c_t + α̂_t ⊙ U_B(:, x_t),
//   ζ = d log P(x) = Σ_j ȧ_T-1(j),   ḃ_T-1 = 0,
//   ḃ_t = [(A ⊙ U_A)(E_t+1 ⊙ β̂_t+1) + A(E_t+1 ⊙ (U_B(:, x_t+1) ⊙ β̂_t+1 + ḃ_t+1))] / c_t+1,
//   dγ_t = ȧ_t ⊙ β̂_t + α̂_t ⊙ ḃ_t − ζ γ_t,
//   Σ_t dξ_t = A ⊙ [Y + (U_A − ζ) ⊙ X],  X = Σ_t α̂_t-1 W_tᵀ,
//              Y = Σ_t ȧ_t-1 W_tᵀ + α̂_t-1 (U_B(:, x_t) ⊙ W_t + E_t ⊙ ḃ_t / c_t)ᵀ.
// Cost O(T K²) per sentence, like forward-backward itself.
//
// Pure functions, no threads. A sentence of probability zero (some c_t = 0) is "dead": its
// log-likelihood is -inf and it adds nothing to any sum.
// REQUIRES for all: hmm rows are distributions; x non-empty with symbols in [0, V).
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <span>

#include "nodes/hmm/forward_backward.h"
#include "nodes/hmm/hmm_params.h"

namespace seqflow {

struct SentenceLattice {
  Eigen::MatrixXd alpha;  // [K x T] α̂_t in column t, columns sum to 1
  Eigen::MatrixXd beta;   // [K x T] β̂_t in column t
  Eigen::VectorXd scale;  // [T] c_t
  double log_likelihood = 0;

  bool alive() const;
  int length() const { return static_cast<int>(scale.size()); }
};

// A direction in log-parameter space, shaped like the HMM. transition_free = false promises
// transition == 0 and lets the pass skip the transition terms and the transition output.
struct LogDirection {
  Eigen::VectorXd initial;     // [K] u_π
  Eigen::MatrixXd transition;  // [K x K] U_A
  Eigen::MatrixXd emission;    // [K x V] U_B
  bool transition_free = true;
};

// Scratch space of the tangent pass; one per thread.
struct TangentWork {
  Eigen::MatrixXd alpha_dot;  // [K x T]
  Eigen::MatrixXd beta_dot;   // [K x T]
  Eigen::MatrixXd w;          // [K x T] W_t
  Eigen::MatrixXd w_dot;      // [K x T] U_B(:, x_t) ⊙ W_t + E_t ⊙ ḃ_t / c_t
};

// Fills `lattice` for x under hmm.
void BuildLattice(const HmmParams& hmm, std::span<const int32_t> x, SentenceLattice* lattice);

// counts += E[Count(x, y)] (log_likelihood and tokens are added too). No-op for a dead lattice
// except tokens, as in forward_backward.h.
void AddLatticeCounts(const HmmParams& hmm, std::span<const int32_t> x, const SentenceLattice& lattice,
                      ExpectedCounts* counts);

// Σ_t H(y_t | x) = −Σ_t Σ_j γ_t(j) log γ_t(j) (0 log 0 = 0); 0 for a dead lattice.
double LatticeEntropy(const SentenceLattice& lattice);

// d += Cov[Count(x, y)] u for the direction u (see above); d.transition is untouched when
// !u.transition_free. d's log_likelihood and tokens are not used.
void AddCountTangent(const HmmParams& hmm, std::span<const int32_t> x, const SentenceLattice& lattice,
                     const LogDirection& u, TangentWork* work, ExpectedCounts* d);

}  // namespace seqflow

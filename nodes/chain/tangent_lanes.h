// The tangent-linear (forward-mode) pass of the lane forward-backward: the directional derivative
// of a chain's marginals and expected bigrams along a direction in its log-potentials, on up to
// kLanes chains at once, from the tables ChainLanesForwardBackward kept (ChainLanesTables).
//
// Moving the log-potentials by a direction u = (u_π, U_t, U_E) — log π → log π + ε u_π,
// log ψ_t → log ψ_t + ε U_t, log E → log E + ε U_E — multiplies the weight of a labelling y by
// exp(ε u·φ(y)), φ(y) the counts of y's events (initial label, label at each position, bigrams), so
//   d/dε E[φ] |_ε=0 = Cov_{p(y)}[φ, φ] u                               (exponential-family identity):
// for an HMM (ψ_t = B(:, x_t), E = A) this is the matrix-free count-covariance product of
// Haffari & Sarkar (2008), Eq. 8. In the notation of forward_backward_lanes.h (Ê_t = c_t ψ_t,
// P_t = α_t ∘ b_t, b_{len-1} = 1/S), differentiating the scaled recurrences with the scales c_t
// held at their base values (ȧ = dα, ḃ = db in that scaling):
//   ȧ_0 = α_0 ∘ (u_π + U_0),
//   ȧ_t = Ê_t ∘ [Eᵀ ȧ_{t-1} + (E ∘ U_E)ᵀ α_{t-1}] + α_t ∘ U_t,
//   ζ = d log Z = Σ_j ȧ_{len-1}(j) b_{len-1}(j),     ḃ_{len-1} = 0,
//   ḃ_t = E (Ê_{t+1} ∘ (U_{t+1} ∘ b_{t+1} + ḃ_{t+1})) + (E ∘ U_E)(Ê_{t+1} ∘ b_{t+1}),
//   dP_t = ȧ_t ∘ b_t + α_t ∘ ḃ_t − ζ P_t,
//   Σ_t dξ_t = E ∘ [Y + (U_E − ζ) ∘ X],  X = Σ_t α_{t-1} W_tᵀ,  W_t = Ê_t ∘ b_t,
//              Y = Σ_t ȧ_{t-1} W_tᵀ + α_{t-1} Ẇ_tᵀ,  Ẇ_t = U_t ∘ W_t + Ê_t ∘ ḃ_t.
// (d/dε of 1/S is −ζ/S, which is the −ζ P_t and −ζ X terms.) U is gathered with 0 past a lane's
// end and b = 0 there, so ḃ = W = Ẇ = 0 past the end and lanes of different lengths need no masks.
// Cost O(T K²) vector operations per batch, like forward-backward; the U_E terms double it.
//
// Lanes without a finite log Z (impossible chains) add nothing. Thread safety: pure; a
// ChainTangentWork belongs to one thread.
#pragma once

#include <vector>

#include "nodes/chain/forward_backward_lanes.h"

namespace seqflow {

// A direction in the chain's log-potentials.
struct ChainTangentDirection {
  const double* position = nullptr;    // U_t: column obs[l][t] of a table addressed like the potentials
  const double* initial = nullptr;     // [K] u_π, or null (0)
  const double* transition = nullptr;  // [K x K] U_E row-major (row = previous label), or null (0)
};

// Where the derivatives are added.
struct ChainTangentOutput {
  double* position = nullptr;    // column obs[l][t] += dP_t, a table addressed like the potentials
  double* initial = nullptr;     // [K] += dP_0, or null
  double* transition = nullptr;  // [K x K] row-major += Σ_t dξ_t; used only with direction.transition
};

// Scratch space of ChainLanesTangent; one per thread.
struct ChainTangentWork {
  LaneVector<Lanes<kLanes>> u;          // [T x K] U_t, 0 past a lane's end
  LaneVector<Lanes<kLanes>> alpha_dot;  // [T x K] ȧ_t
  LaneVector<Lanes<kLanes>> beta_dot;   // [2 K] ḃ_t and ḃ_{t+1}
  LaneVector<Lanes<kLanes>> scratch;    // [2 K] the step's vector, then dP_t; the U_E term
  LaneVector<Lanes<kLanes>> w, w_dot;   // [T x K] W_t, Ẇ_t (with U_E only)
  LaneVector<Lanes<kLanes>> x, y;       // [K x K] X and Y per lane (with U_E only)
  std::vector<double> de, de_t;          // [K x K] E ∘ U_E and its transpose (with U_E only)
};

// Adds the derivatives along `u` of the batch's marginals (and expected bigrams when
// u.transition is set) to `out`. REQUIRES: `tables` kept by ChainLanesForwardBackward on this
// batch and transition; u.position covers every column obs[l][t]; out.position likewise.
void ChainLanesTangent(const ChainLanesTransition& transition, const LaneBatch<kLanes>& batch,
                       const ChainLanesTables& tables, const ChainTangentDirection& u, ChainTangentWork& work,
                       const ChainTangentOutput& out);

}  // namespace seqflow

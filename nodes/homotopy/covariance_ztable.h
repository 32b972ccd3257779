// One sentence's dense count covariance Cov_{P(y|x,θ)}[Count(x, y)] on the free parameters, by
// the Z-table of Haffari & Sarkar (2008, §4).
//
// Count(ω) = Σ_t f_ω(t) with the position events: the node y_t (emission (y_t, x_t), and
// initial y_0 at t = 0) and the edge (y_t-1, y_t) (transition, t >= 1). Hence
//   E[Count(ω1) Count(ω2)] = Σ_t1 Σ_t2 P(event ω1 at t1, event ω2 at t2 | x),
// and for t1 < t2 these pairwise probabilities come from products of
// M_k(s, s') = A(s, s') B(s', x_k), the Z-table Z_t1,t2 = M_t1+1 ⋯ M_t2 of §4, in scaled form
// (SentenceLattice below):
//   P(y_t1 = s, y_t2 = s')                = α̂_t1(s) Ẑ_t1,t2(s, s') β̂_t2(s'),
//   P(y_t1 = s, y_t2-1 = c, y_t2 = d)     = α̂_t1(s) Ẑ_t1,t2-1(s, c) A(c, d) W_t2(d),
//   edges at t1 start from the row α̂_t1-1(a) A(a, b) Ê_t1(b) instead of α̂_t1(s) e_s,
// with Ẑ_t1,t2 = Π_k M_k / c_k = Π_k A diag(Ê_k): the scales keep every product a probability,
// so nothing underflows however long the sentence. The rows F = [sources x K] are propagated one
// factor at a time (F ← F A diag(Ê_t)), so each source position costs O(T K² n_sources).
// Pairs at the same position are diagonal (γ_t, ξ_t, and an edge meets the node it enters).
// Cov = Σ_{t1 < t2} (P + Pᵀ) + same-position terms − E[Count] E[Count]ᵀ.
//
// Only events that can occur in x are non-zero: the initial and transition events (if free) and
// the emissions of the sentence's own words, so the result is a small [n x n] matrix with
// n <= K + K² + K · distinct(x), plus the Θ̃ index of each row. Cost O(T² K⁴) with transitions
// free (edge-edge pairs), O(T² K³) when only emission / initial blocks are free.
//
// Pure function, no threads. REQUIRES: lattice = LatticeFromLanes of x's lane under hmm, x non-empty.
#pragma once

#include <Eigen/Dense>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "nodes/chain/forward_backward_lanes.h"
#include "nodes/semi_supervised/pom_layout.h"

namespace seqflow {

// One sentence's scaled forward-backward tables, unpacked from its lane of the chain library's
// (ChainLanesTables, forward_backward_lanes.h, with ψ_t = B(:, x_t), E = A): column t holds
//   α̂_t, with α̂_t = (Aᵀ α̂_{t-1}) ⊙ Ê_t;  β̂_t = A (Ê_{t+1} ⊙ β̂_{t+1}), β̂_{T-1} = 1 / S;
//   Ê_t = B(:, x_t) / c_t, c_t the scale of step t;
// so γ_t = α̂_t ⊙ β̂_t = P(y_t | x) and ξ_t(a, b) = α̂_{t-1}(a) A(a, b) Ê_t(b) β̂_t(b).
struct SentenceLattice {
  Eigen::MatrixXd alpha;  // [K x T] α̂_t
  Eigen::MatrixXd beta;   // [K x T] β̂_t
  Eigen::MatrixXd emit;   // [K x T] Ê_t
  double log_likelihood = 0;

  bool alive() const { return std::isfinite(log_likelihood); }
  int length() const { return static_cast<int>(alpha.cols()); }
};

// The lattice of lane `lane` of a batch whose tables the chain library kept.
void LatticeFromLanes(const ChainLanesTables& tables, int K, int lane, int length, SentenceLattice* out);

struct LocalCovariance {
  std::vector<int> index;  // [n] Θ̃ index of each local row
  Eigen::MatrixXd cov;     // [n x n] covariance of the counts of those parameters, symmetric
};

// Fills `out`; a dead lattice gives n = 0.
void SentenceCovariance(const PomLayout& layout, const HmmParams& hmm, std::span<const int32_t> x,
                        const SentenceLattice& lattice, LocalCovariance* out);

}  // namespace seqflow

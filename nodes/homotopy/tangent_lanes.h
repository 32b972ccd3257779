// The tangent-linear forward-backward of sentence_lattice.h on up to L sentences at once, one
// sentence per SIMD lane (nodes/common/lanes.h), for directions with U_A = 0 (transitions frozen,
// the citation-scale case of Haffari & Sarkar 2008 §5): d += Σ_lanes Cov[Count] u on the initial
// and emission outputs.
//
// Per lane, with Ê_t = E_t / c_t (the emission column of x_t over the base scale) and
// U_t = U_B(:, x_t), the recurrences of sentence_lattice.h with U_A = 0 read
//   ȧ_0 = α̂_0 ⊙ (u_π + U_0),        ȧ_t = (Aᵀ ȧ_t-1) ⊙ Ê_t + α̂_t ⊙ U_t,
//   ζ = Σ_j ȧ_len-1(j),             ḃ_t = A (Ê_t+1 ⊙ (U_t+1 ⊙ β̂_t+1 + ḃ_t+1)),  ḃ_len-1 = 0,
//   dγ_t = ȧ_t ⊙ β̂_t + α̂_t ⊙ ḃ_t − ζ α̂_t ⊙ β̂_t.
// The packed tables hold α̂, β̂ and Ê as 0 past a lane's end, so shorter lanes need no masks:
// there ȧ = 0, and Ê_len = 0 makes ḃ_len-1 = 0, which starts each lane's backward pass at its
// own end. Cost O(T K²) vector operations per batch of L sentences.
//
// Thread safety: a LatticeBatch is immutable once packed; a TangentLaneWork belongs to one thread.
#pragma once

#include <span>
#include <vector>

#include "nodes/common/lanes.h"
#include "nodes/homotopy/sentence_lattice.h"

namespace seqflow {

// The base forward-backward tables of up to L live sentences in lane layout.
template <int L>
struct LatticeBatch {
  LaneBatch<L> batch;           // the sentences (spans into the caller's corpus)
  std::vector<Lanes<L>> alpha;  // [T x K] α̂_t(j) at t * K + j, 0 past a lane's end
  std::vector<Lanes<L>> beta;   // [T x K] β̂_t
  std::vector<Lanes<L>> emit;   // [T x K] Ê_t = E_t / c_t
};

// Scratch space of AddCountTangentLanes; one per thread.
template <int L>
struct TangentLaneWork {
  std::vector<Lanes<L>> u_emit;     // [T x K] U_t, 0 past a lane's end
  std::vector<Lanes<L>> alpha_dot;  // [T x K] ȧ_t
  std::vector<Lanes<L>> beta_dot;   // [2 K] ḃ_t and ḃ_t+1
  std::vector<Lanes<L>> scratch;    // [K] Ê_t+1 ⊙ (U_t+1 ⊙ β̂_t+1 + ḃ_t+1), then dγ_t
};

// Packs the lattices of `ids` (at most L sentences of `x`, each alive and non-empty, lattices
// built under hmm) into lanes 0 .. ids.size() − 1.
template <int L>
void PackLatticeBatch(const HmmParams& hmm, const std::vector<std::vector<int32_t>>& x, std::span<const size_t> ids,
                      const std::vector<SentenceLattice>& lattices, LatticeBatch<L>* out);

// d += Σ over the batch's lanes of Cov[Count(x, y)] u, initial and emission blocks only.
// REQUIRES: u.transition == 0 (ignored); batch packed under hmm.
template <int L>
void AddCountTangentLanes(const HmmParams& hmm, const LatticeBatch<L>& batch, const LogDirection& u,
                          TangentLaneWork<L>* work, ExpectedCounts* d);

}  // namespace seqflow

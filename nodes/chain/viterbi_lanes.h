// Viterbi on a batch of up to kLanes linear chains, one chain per SIMD lane (nodes/common/lanes.h):
// the double-precision Viterbi of the project (HMMs, CRFs, hybrids; the certified float kernel of
// viterbi_f32_lanes.h falls back to it).
//
// Per lane, in log space with e_t(j) = the table's column obs[t] (0 past the lane's end):
//   δ_0 = log π + e_0;  δ_t(j) = max_i [δ_{t-1}(i) + log A(i, j)] + e_t(j).
// For an HMM e_t = log B(:, x_t); for a CRF e_t is the token's score row and log π = 0.
// The forward pass keeps only max values (two vector ops per (i, j), no argmax bookkeeping);
// the backtrack recomputes δ_t(i) + log A(i, s) for the chosen successor s, which reproduces the
// forward maxima bit for bit, and takes the lowest i attaining the maximum. Ties therefore break
// toward the lower label, and a chain's path does not depend on its batch. The backtrack runs on
// all lanes at once too, gathering log A(i, s_l) for each lane's own s_l.
// Thread safety: ChainViterbiModel is immutable and shareable; a ChainViterbiWork belongs to one
// thread.
#pragma once

#include <Eigen/Dense>
#include <array>
#include <cstdint>
#include <vector>

#include "nodes/chain/forward_backward_lanes.h"
#include "nodes/common/lanes.h"

namespace seqflow {

// The log tables every batch of one call shares.
struct ChainViterbiModel {
  // From bigram log-potentials (row = previous label) and log π ([K], or empty for 0).
  static ChainViterbiModel FromLogPotentials(const Eigen::Ref<const RowMatrixXd>& log_transition,
                                             Eigen::VectorXd log_initial = {});

  int K = 0;
  Eigen::VectorXd log_initial;      // [K]
  Eigen::MatrixXd log_a_ext;        // [K x (K+1)] log A, column-major (log A(i, j) at [j * K + i]),
                                    // then a zero column: the successor past a chain's end
  Eigen::MatrixXd log_a_row_major;  // [K x K] log A(i, j) at [i * K + j]
};

// Where the per-position log-potentials come from: column c of `table` is K contiguous doubles.
// With take_log the table holds probabilities (an HMM's B, for a single sentence, where taking
// the logs of the columns used is cheaper than a log table for all symbols).
struct ChainViterbiTable {
  const double* table = nullptr;
  bool take_log = false;
};

struct ChainViterbiWork {
  LaneVector<Lanes<kLanes>> log_emit;  // [K] e_t of the current step
  LaneVector<Lanes<kLanes>> delta;     // [T x K]
};

// Decodes the batch: paths[l] receives len(l) labels (nullptr for an empty lane) and
// (*scores)[l] the log-potential of that path (-inf when the chain is impossible; the path is
// then all zeros). REQUIRES: every column obs[l][t] inside the table; batch.length >= 1.
void ChainViterbiRun(const ChainViterbiModel& model, const ChainViterbiTable& table, const LaneBatch<kLanes>& batch,
                     ChainViterbiWork* work, const std::array<int32_t*, kLanes>& paths,
                     std::array<double, kLanes>* scores);

namespace chain_internal {

// Feeds the backtrack's candidates δ_t(i) + log A(i, next), i = 1 .. K-1, to two running argmax
// chains, odd i to `odd` and even i to `even` (which holds i = 0 already): two chains halve the
// dependency on the running maximum. The caller takes the better chain, the lower index on ties.
// Shared by the double and the certified float backtracks; Chain::Add(x, i) keeps the lowest i of
// the maximum. `d` and `log_a` are lane arrays or PieceColumns of them (nodes/common/lanes.h).
template <class Chain, class D>
inline void AddCandidates(const D& d, const D& log_a, int K, Chain& even, Chain& odd) {
  int i = 1;
  for (; i + 1 < K; i += 2) {
    odd.Add(d[i] + log_a[i], i);
    even.Add(d[i + 1] + log_a[i + 1], i + 1);
  }
  if (i < K) odd.Add(d[i] + log_a[i], i);
}

}  // namespace chain_internal
}  // namespace seqflow

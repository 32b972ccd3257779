// Viterbi in single precision on 16 lanes, with a certificate that the path is the exact one.
// Max-plus in float does twice the work per instruction of double; the certificate keeps the
// result identical to the double-precision kernel (viterbi_lanes.h) for every sentence.
//
// The recurrence is that of viterbi_lanes.h with every log probability rounded to float; it is
// for chains whose log-potentials are log probabilities (HMMs), because the certificate needs
// every term <= 0. All
// terms are <= 0, so along any path the partial sums only grow in magnitude, and the float value
// of a candidate at backtrack step t (a path prefix of t + 1 states plus one transition: at most
// 2t + 3 rounded terms and 2t + 2 rounded additions) is within u (2t + 3) |value| of its exact
// value, u = 2^-24. Rounding is monotone, so a float DP value is the float value of the best
// prefix and bounds every other prefix's float value. Hence when, at every backtrack decision of
// a lane, the best candidate beats the runner-up by more than 2u (2t + 3) (|best| + |runner-up|)
// (twice the error bound, for slack), the exact argmax — and the double one, whose errors are
// ~1e-9 times smaller — is the float argmax, with no ties. A lane failing any check (or an
// impossible sentence) is reported uncertified; the caller decodes it again in double.
// Thread safety: ViterbiF32Model is immutable and shareable; a ViterbiF32Work belongs to one thread.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "nodes/chain/viterbi_lanes.h"
#include "nodes/common/lanes.h"

namespace seqflow {

inline constexpr int kF32Lanes = 16;

// Float copies of the model's log tables and of a log-potential table with `columns` columns of
// K values (an HMM's log B). Holds a reference: `exact` must outlive it.
// REQUIRES: every log-potential, of exact and of the table, is <= 0.
struct ViterbiF32Model {
  ViterbiF32Model(const ChainViterbiModel& exact, const double* log_table, int64_t columns);

  const ChainViterbiModel& exact;
  int K;
  std::vector<float> log_initial;      // [K]
  std::vector<float> log_a_row_major;  // [K x K] log A(i, j) at [i * K + j]
  std::vector<float> log_a_ext;        // [K x (K+1)] as ChainViterbiModel::log_a_ext, then 16 zeros
  std::vector<float> log_emission;     // [K x columns] the log-potential table, column-major, then 16 zeros
  std::vector<float> log_a_rows;       // [K x 32] log A(i, j) at [i * 32 + j], 0 at j = K; empty if K >= 32
};

struct ViterbiF32Work {
  LaneVector<FloatLanes<kF32Lanes>> delta;   // [T x K]
  LaneVector<FloatLanes<kF32Lanes>> column;  // [K] log emissions, then log A(:, next) in backtrack
  LaneVector<Int32Lanes<kF32Lanes>> args;    // [T] the backtrack's choices
};

// Decodes the batch: paths[l] receives len(l) states (nullptr for an empty lane) and
// (*certified)[l] whether that path is certainly the double-precision Viterbi path (true for
// empty lanes). REQUIRES: every column obs[l][t] inside the table; batch.length >= 1.
void ViterbiF32Run(const ViterbiF32Model& model, const LaneBatch<kF32Lanes>& batch, ViterbiF32Work* work,
                   const std::array<int32_t*, kF32Lanes>& paths, std::array<bool, kF32Lanes>* certified);

}  // namespace seqflow

// Scaled forward-backward on a batch of up to kLanes linear chains, one chain per SIMD lane
// (nodes/common/lanes.h): the one forward-backward of the project. HMM E-steps and posterior
// decoding, the CRF likelihood, the hybrid model, the homotopy's count covariances (through the
// tables it keeps, and the tangent pass of tangent_lanes.h over them) and the decoders run it.
//
// A chain of K labels is given by per-position potentials ψ_t(j) >= 0, an optional initial
// weight π(j) at position 0, and label-bigram potentials E(i, j) >= 0 (row = previous label):
//   p(y) ∝ π(y_0) Π_t ψ_t(y_t) Π_{t>0} E(y_{t-1}, y_t).
// The potentials come from one of two kinds of table (ChainPotentials):
//   kProbabilities  ψ_t = the table's column obs[t] (an HMM's emission column B(:, x_t)), E = A;
//   kLogScores      the column holds log-potentials s_t; ψ_t = exp(s_t - m_t), m_t = max_k s_t(k),
//                   E = exp(A - max A) (a CRF), and the shifts go back into log Z.
// Per lane, with power-of-two scales c_t:
//   forward   α_0 = c_0 π ∘ ψ_0;  α_t = c_t ψ_t ∘ (Eᵀ α_{t-1});
//   backward  b_t = E W_{t+1} + [t = len-1] / S,  W_t = c_t ψ_t ∘ b_t  (W = b = 0 past the end);
//   S = Σ_j α_{len-1}(j);  P_t = α_t ∘ b_t;
//   log Z = Σ_{t<len} m_t + (len - 1) max A - Σ_t log2(c_t) ln 2 + log S.
// This is Rabiner's scaling (1989, §V.A, eqs. 91-103) with c_t = 2^-floor(log2 Σ_j α_t(j)) before
// scaling instead of the sum's inverse: multiplying by a power of two is exact, needs no division,
// and log Z needs one log per chain. The sums of α_t stay in [1, 2); the 1/S put into the backward
// start makes P_t sum to 1. The indicator [t = len-1] starts each lane's backward pass at its own
// end, so lanes of different lengths need no masks: padding steps get b = W = P = 0.
// Expected bigrams: ξ(i, j) = E(i, j) Σ_t α_{t-1}(i) W_t(j). The sum is accumulated per lane
// (a small GEMM per batch); the caller multiplies by E once, after summing (ChainLanesAddBigrams).
// A lane with no finite log Z — an impossible chain (some Σ_j α_t(j) = 0) or non-finite scores —
// gets zero W and P and adds nothing to any count; its log Z is -inf for a probability table (a
// sentence of probability zero) and NaN for a score table (a numerical failure for the caller).
// The gathers of table columns into lanes and the transposes of P back to per-token rows happen
// inside the forward and backward steps, where they overlap the steps' dependency chains.
// Thread safety: ChainLanesTransition is immutable and shareable; a ChainLanesWork belongs to one
// thread.
#pragma once

#include <Eigen/Dense>
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "nodes/common/lanes.h"

namespace seqflow {

using RowMatrixXd = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// E and Eᵀ for the K x K steps, computed once for all the batches that share them.
struct ChainLanesTransition {
  // From bigram log-potentials A [K x K] (row = previous label): E = exp(A - max A).
  static ChainLanesTransition FromLogPotentials(const Eigen::Ref<const RowMatrixXd>& transition);
  // From a transition probability matrix A [K x K] (rows sum to 1): E = A, no shift.
  static ChainLanesTransition FromProbabilities(const Eigen::Ref<const Eigen::MatrixXd>& transition);

  int num_labels = 0;      // K
  double shift = 0;        // max A for log-potentials, 0 for probabilities
  std::vector<double> e;   // [K x K] E(i, j) at i * K + j
  std::vector<double> et;  // [K x K] Eᵀ: E(i, j) at j * K + i
};

// Where the per-position potentials come from. Column c of `table` is K contiguous doubles (a
// column-major [K x V] emission matrix, or a row-major [rows x K] score table).
struct ChainPotentials {
  enum class Kind { kProbabilities, kLogScores };
  const double* table = nullptr;
  Kind kind = Kind::kLogScores;
  const double* initial = nullptr;  // [K] π multiplying position 0, or null (π = 1)
};

// Scratch tables of one thread, reused across batches; [T x K] tables are time-major lanes.
struct ChainLanesWork {
  LaneVector<Lanes<kLanes>> psi;    // [T x K] ψ_t
  LaneVector<Lanes<kLanes>> alpha;  // [T x K] α_t, each row sums to [1, 2)
  LaneVector<Lanes<kLanes>> w;      // [T x K] W_t
  LaneVector<Lanes<kLanes>> scale;  // [T] c_t
  LaneVector<Lanes<kLanes>> beta;   // [K] b_t
  LaneVector<Lanes<kLanes>> gamma;  // [K] P_t
  void Reserve(int T, int K);
};

// The scaled tables of one batch, handed back for the passes that reuse them without a second
// recurrence (the tangent pass of tangent_lanes.h, the homotopy's covariance Z-table). In the
// notation above, with Ê_t = c_t ψ_t (the potentials over the scale, padded with c_t past a lane's
// end), per lane:
//   α_0 = π ∘ Ê_0,  α_t = Ê_t ∘ (Eᵀ α_{t-1});   b_t = E (Ê_{t+1} ∘ b_{t+1}) + [t = len-1] / S;
//   P_t = α_t ∘ b_t;  ξ_t(i, j) = α_{t-1}(i) E(i, j) Ê_t(j) b_t(j);  b = 0 past a lane's end.
// α past a lane's end is whatever the recurrence gives: read it only at t < len.
struct ChainLanesTables {
  LaneVector<Lanes<kLanes>> alpha;  // [T x K] α_t
  LaneVector<Lanes<kLanes>> beta;   // [T x K] b_t
  LaneVector<Lanes<kLanes>> emit;   // [T x K] Ê_t
  std::array<double, kLanes> log_z{};
  bool live(int lane, const LaneBatch<kLanes>& batch) const;  // a used lane with a finite log Z
};

// Runs both passes on `batch`. Returns log Z per lane (0 for unused lanes; see above for lanes
// without a finite one). Writes lane l's marginals, row-major [len(l) x K], to marginal_rows[l]
// unless it is null (Out = double, or float for the CRF trainer's buffer), adds
// Σ_t α_{t-1}(i) W_t(j) per lane to xi[i * K + j] unless xi is null, and fills `tables` unless it
// is null. With no output but log Z the backward pass is skipped.
// REQUIRES: batch.length >= 1 and lanes filled from lane 0 on; every column obs[l][t] inside
// `potentials.table`; xi has K * K entries.
template <class Out>
std::array<double, kLanes> ChainLanesForwardBackward(const ChainPotentials& potentials,
                                                     const ChainLanesTransition& transition,
                                                     const LaneBatch<kLanes>& batch, ChainLanesWork& work,
                                                     const std::array<Out*, kLanes>& marginal_rows, Lanes<kLanes>* xi,
                                                     ChainLanesTables* tables = nullptr);

// acc[i * K + j] += Σ_{t+1 < T} a_t(i) w_{t+1}(j) per lane, for [T x K] lane tables a and w: the
// expected-bigram sum of the forward-backward (a = α, w = W) and of its tangent pass.
void ChainLanesAddOuter(const Lanes<kLanes>* a, const Lanes<kLanes>* w, int K, int T, Lanes<kLanes>* acc);

// Σ over lanes of xi[c], for the callers that finish the bigram counts themselves.
double SumLanes(const Lanes<kLanes>& v);

// counts[i * K + j] += E(i, j) Σ_l xi[i * K + j][l] (lanes summed in order, so the result depends
// only on the batches accumulated into xi), then zeroes xi.
void ChainLanesAddBigrams(const ChainLanesTransition& transition, Lanes<kLanes>* xi, double* counts);

// 0, 1, ..., count - 1 in `ids` (grown as needed, never shrunk): the column numbers of a
// row-major score table, for batches whose potentials are rows of that table — lane l covering
// rows [first, first + len) gets obs[l] = span(ids).subspan(first, len).
inline std::span<const int32_t> ChainRowIds(size_t count, std::vector<int32_t>* ids) {
  for (size_t r = ids->size(); r < count; ++r) ids->push_back(static_cast<int32_t>(r));
  return {ids->data(), count};
}

}  // namespace seqflow

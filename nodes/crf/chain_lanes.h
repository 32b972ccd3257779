// Forward-backward of linear_chain.h on a batch of up to kLanes chains, one chain per SIMD lane
// (nodes/common/lanes.h), for the CRF trainer: the K x K steps run on 8 sentences at once in
// vertical arithmetic, as nodes/hmm/fb_lanes.h does for HMMs.
//
// Per lane, with s_t the token's score row, m_t = max_k s_t(k), ψ_t = exp(s_t - m_t) (ψ = 1 past
// the lane's end), E = exp(A - max A) and power-of-two scales c_t:
//   forward   α_0 = c_0 ψ_0;  α_t = c_t ψ_t ∘ (E^T α_{t-1});
//   backward  b_t = E W_{t+1} + [t = len-1] / S,  W_t = c_t ψ_t ∘ b_t  (W = b = 0 past the end);
//   S = Σ_j α_{len-1}(j);  P_t = α_t ∘ b_t;
//   log Z = Σ_{t<len} (m_t - log c_t) + (len - 1) max A + log S.
// c_t = 2^-floor(log2 Σ_j α_t(j)) before scaling (Rabiner 1989 §V.A with exact power-of-two
// scales, as fb_lanes.h): scaling is exact and costs no division, and log Z needs one log per
// sentence. The indicator [t = len-1] starts every lane's backward pass at its own end, so lanes of
// different lengths need no masks. Expected bigrams are ξ(i, j) = E(i, j) Σ_t α_{t-1}(i) W_t(j);
// the sum is accumulated per lane and multiplied by E once per reduction (ChainLanesAddBigrams).
// Thread safety: ChainLanesTransition is immutable and shareable; a ChainLanesWork belongs to one
// thread.
#pragma once

#include <Eigen/Dense>
#include <array>
#include <cstdint>
#include <vector>

#include "nodes/common/lanes.h"
#include "nodes/crf/linear_chain.h"

namespace seqflow {

// E and E^T for the K x K steps, computed once for all the batches that share A.
struct ChainLanesTransition {
  explicit ChainLanesTransition(const Eigen::Ref<const RowMatrixXd>& transition);
  int num_labels = 0;      // K
  double shift = 0;        // max A
  std::vector<double> e;   // [K x K] E(i, j) at i * K + j, row = previous label
  std::vector<double> et;  // [K x K] E^T: E(i, j) at j * K + i
};

// Up to kLanes chains whose score rows live in one row-major [rows x K] table: lane l is the
// chain of rows [first[l], first[l] + len[l]); len[l] = 0 marks an unused lane.
struct ChainLanesBatch {
  std::array<int64_t, kLanes> first{};
  std::array<int, kLanes> len{};
  int length = 0;  // max_l len[l]
};

// Scratch tables of one thread, reused across batches; [T x K] tables are time-major lanes.
struct ChainLanesWork {
  std::vector<Lanes<kLanes>> psi;    // [T x K] ψ_t
  std::vector<Lanes<kLanes>> alpha;  // [T x K] α_t, each row sums to [1, 2)
  std::vector<Lanes<kLanes>> w;      // [T x K] W_t
  std::vector<Lanes<kLanes>> scale;  // [T] c_t
  std::vector<Lanes<kLanes>> beta;   // [K] b_t
  std::vector<Lanes<kLanes>> gamma;  // [K] P_t
  void Reserve(int T, int K);
};

// Runs both passes on `batch` with scores from `scores` (row-major, K doubles a row). Returns log Z
// per lane (0 for unused lanes; not finite when a lane's potentials are not finite or a scaled sum
// underflows, as ChainForwardBackward). Writes lane l's marginals, row-major [len(l) x K], to
// marginal_rows[l] unless it is null (Out = double, or float for the trainer's buffer), and adds
// Σ_t α_{t-1}(i) W_t(j) per lane to xi[i * K + j] unless xi is null.
// REQUIRES: batch.length >= 1; every row of every lane inside `scores`; xi has K * K entries.
template <class Out>
std::array<double, kLanes> ChainLanesForwardBackward(const double* scores, const ChainLanesTransition& transition,
                                                     const ChainLanesBatch& batch, ChainLanesWork& work,
                                                     const std::array<Out*, kLanes>& marginal_rows, Lanes<kLanes>* xi);

// counts[i * K + j] += E(i, j) Σ_l xi[i * K + j][l] (lanes summed in order, so the result depends
// only on the batches accumulated into xi), then zeroes xi.
void ChainLanesAddBigrams(const ChainLanesTransition& transition, Lanes<kLanes>* xi, double* counts);

}  // namespace seqflow

// Second-order linear chains (Sha & Pereira 2003): the label of position t is the pair
// (y_{t-1}, y_t) of consecutive tags and transitions join only consistent pairs (a, b) -> (b, c),
// so each transition carries a tag-trigram log-potential G(a, b, c):
//   p(y) ∝ exp(Σ_t s_t(y_t) + G(S, y_0, y_1) + Σ_{t>=2} G(y_{t-2}, y_{t-1}, y_t)).
// The start tag S = K is an extra first index of G: position 0's pair is (S, y_0), and its
// transition to (y_0, y_1) reads row a = S. (S, y_0) itself has no weight, as a first-order chain
// has no initial weights; G(a, b, c) = A(b, c) for every a gives back the first-order chain.
// G is [(K+1) x K x K], G(a, b, c) at (a * K + b) * K + c. The K² pair states and (K+1) K²
// transitions are never a K² x K² matrix: for a fixed middle tag b a step is one K x K product,
// so a position costs K³ multiply-adds (12 k at K = 23) against K² for the first order.
//
// Forward-backward in probability space on kLanes sentences at once (one per SIMD lane, as
// forward_backward_lanes.h), with ψ_t = exp(s_t - max s_t), E = exp(G - max G) and one
// power-of-two scale c_t per position:
//   α_0(c) = c_0 ψ_0(c);  α_1(b, c) = c_1 ψ_1(c) α_0(b) E(S, b, c);
//   α_t(b, c) = c_t ψ_t(c) Σ_a α_{t-1}(a, b) E(a, b, c);
//   β_t(b, c) = Σ_d E(b, c, d) W_{t+1}(c, d) + [t = len-1] / S,  W_t(b, c) = c_t ψ_t(c) β_t(b, c);
//   β_0(c) = Σ_d E(S, c, d) W_1(c, d) + [len = 1] / S;  S = Σ α_{len-1};
//   P_t(b, c) = α_t(b, c) β_t(b, c),  P_t(c) = Σ_b P_t(b, c),  P_0(c) = α_0(c) β_0(c);
//   ξ(a, b, c) = E(a, b, c) Σ_t α_{t-1}(a, b) W_t(b, c)  (α_0(S, b) = α_0(b) for a = S);
//   log Z = Σ_{t<len} max s_t + (len - 1) max G - Σ_t log2(c_t) ln 2 + log S.
// As in the first-order kernel the indicator starts each lane's backward pass at its own end; a
// lane without a finite log Z (non-finite scores, an underflow) has log Z NaN, which callers treat
// as a numerical failure, and its marginals mean nothing. Every entry point is cloned
// per instruction set (engine/base/isa.h) and each clone gives the same bits.
// Thread safety: SecondOrderTransition is immutable and shareable; a SecondOrderWork belongs to
// one thread.
#pragma once

#include <Eigen/Dense>
#include <array>
#include <cstdint>
#include <vector>

#include "nodes/chain/forward_backward_lanes.h"
#include "nodes/common/lanes.h"

namespace seqflow {

// Index of G(a, b, c) in the [(K+1) x K x K] trigram tensor; a = K is the start tag.
inline int64_t TrigramIndex(int K, int a, int b, int c) {
  return (static_cast<int64_t>(a) * K + b) * K + c;
}
inline int64_t TrigramSize(int K) { return static_cast<int64_t>(K + 1) * K * K; }

// E = exp(G - max G) in the layouts the steps read, computed once for all batches.
struct SecondOrderTransition {
  // REQUIRES: trigram.size() == TrigramSize(num_labels).
  static SecondOrderTransition FromLogPotentials(const Eigen::Ref<const Eigen::VectorXd>& trigram, int num_labels);

  int num_labels = 0;            // K
  double shift = 0;              // max G
  std::vector<double> e;         // [(K+1) x K x K] E(a, b, c) at TrigramIndex(K, a, b, c)
  std::vector<double> forward;   // [K x K x K] E(a, b, c) at (b * K + a) * K + c, a < K
  std::vector<double> backward;  // [K x K x K] E(b, c, d) at (c * K + d) * K + b, b < K
};

// Scratch of one thread, reused across batches. Pair tables are [K x T x K] lanes: for each
// middle tag a time-major table, so that a step and the ξ sums read contiguous rows.
struct SecondOrderWork {
  LaneVector<Lanes<kLanes>> psi;     // [T x K] ψ_t
  LaneVector<Lanes<kLanes>> scale;   // [T] c_t
  LaneVector<Lanes<kLanes>> alpha0;  // [K] α_0
  LaneVector<Lanes<kLanes>> alpha;   // α_t(a, b) at (b * T + t) * K + a; zero at t = 0
  LaneVector<Lanes<kLanes>> w;       // W_t(b, c) at (b * T + t) * K + c
  LaneVector<Lanes<kLanes>> row;     // [K] one step's output
  LaneVector<Lanes<kLanes>> gamma;   // [K] P_t
};

// Runs both passes on `batch`, whose lanes read rows of the row-major score table `scores`
// (K doubles a row; ChainRowIds). Returns log Z per lane (0 for unused lanes, NaN for a lane
// without a finite one). Writes lane l's tag marginals, row-major [len(l) x K], to
// marginal_rows[l] unless null (Out = double or float); its pair marginals P_t(b, c), row-major
// [len(l) x K x K] with row 0 zero, to pair_rows[l] unless null; and adds Σ_t α_{t-1}(a, b)
// W_t(b, c) per lane to xi unless null ([(K+1) x K x K] lanes in the layout of
// SecondOrderAddTrigrams). With no output but log Z the backward pass is skipped.
// REQUIRES: batch.length >= 1, lanes filled from lane 0 on, every row id inside `scores`.
template <class Out>
std::array<double, kLanes> SecondOrderForwardBackward(const double* scores, const SecondOrderTransition& transition,
                                                      const LaneBatch<kLanes>& batch, SecondOrderWork& work,
                                                      const std::array<Out*, kLanes>& marginal_rows,
                                                      const std::array<double*, kLanes>& pair_rows,
                                                      Lanes<kLanes>* xi);

// counts[TrigramIndex(K, a, b, c)] += E(a, b, c) Σ_l xi[...][l] (lanes summed in order), then
// zeroes xi: the expected trigram counts Σ_t P(y_{t-2} = a, y_{t-1} = b, y_t = c) (a = S at t = 1).
void SecondOrderAddTrigrams(const SecondOrderTransition& transition, Lanes<kLanes>* xi, double* counts);

// The highest-scoring tag sequence of one sentence, scores [T x K] row-major (T >= 1): ties go
// to the lower predecessor, and at the end to the lower (y_{T-2}, y_{T-1}) pair.
// `trigram` is G. Scalar: decoding runs it once per sentence.
std::vector<int32_t> SecondOrderViterbi(const double* scores, int T, int K, const double* trigram);

// Σ_t s_t(y_t) + Σ_{t>=1} G(y_{t-2}, y_{t-1}, y_t) with y_{-1} = S.
double SecondOrderScore(const Eigen::Ref<const RowMatrixXd>& scores, const Eigen::Ref<const Eigen::VectorXd>& trigram,
                        const std::vector<int32_t>& labels);

}  // namespace seqflow

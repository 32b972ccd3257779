// Scaled forward-backward on a batch of up to L sentences, one sentence per SIMD lane (see
// nodes/common/lanes.h). This is the engine behind every function of forward_backward.h: the
// corpus functions fill all kLanes lanes, the single-sentence functions lane 0 only.
//
// Per lane, with E_t(j) = B(j, x_t) (E = 1 past the lane's end) and scales s_t:
//   forward   a_0 = s_0 pi .* E_0;  a_t = s_t (A^T a_t-1) .* E_t;
//   backward  b_t = A W_t+1 + [t = len-1] / Z,  W_t = s_t E_t .* b_t  (W = b = 0 past the end);
//   Z = sum_j a_len-1(j);  gamma_t = a_t .* b_t;  log p(x) = log Z - sum_t<len log s_t.
// This is Rabiner's scaling (1989, eqs. 91-103) with s_t = 2^-floor(log2 c_t) instead of 1 / c_t,
// c_t = the sum before scaling: multiplying by a power of two is exact, needs no division, and
// log p(x) is an integer sum of exponents plus one log per sentence. The sums of a_t stay in
// [1, 2); the 1/Z put into the backward start makes gamma sum to 1.
// The indicator [t = len-1] starts each lane's backward pass at its own end, so lanes of different
// lengths need no masks: padding steps get b = W = gamma = 0 and add nothing to counts.
// Transition counts are xi(i, j) = A(i, j) sum_t a_t(i) W_t+1(j): the sum is a small GEMM per
// lane (FbAddTransitionCounts); the caller multiplies by A once, after summing sentences.
// A lane whose sentence has probability zero (some c_t = 0) gets log_likelihood = -inf, 1/Z = 0
// and hence zero W and gamma: it adds nothing to any count and leaves no NaN behind (its a_t are
// 0 from the impossible step on, because s_t stays finite when c_t = 0).
// The emission gathers and the transposes of gamma back to per-token rows happen inside the
// forward and backward steps, where they overlap the steps' dependency chains.
// Thread safety: FbModel is immutable and shareable; an FbWork belongs to one thread.
#pragma once

#include <Eigen/Dense>
#include <array>
#include <vector>

#include "nodes/common/lanes.h"
#include "nodes/hmm/hmm_params.h"

namespace seqflow {

// What every batch of one call shares. Holds a reference: `hmm` must outlive it.
struct FbModel {
  explicit FbModel(const HmmParams& hmm);

  const HmmParams& hmm;
  int K;
  Eigen::MatrixXd a_row_major;  // [K x K] A^T in column-major order, i.e. A(i, j) at [i * K + j]
};

template <int L>
struct FbWork {
  std::vector<Lanes<L>> emit;              // [T x K] E_t(j)
  std::vector<Lanes<L>> alpha;             // [T x K] scaled forward a_t, sums to [1, 2) over j
  std::vector<Lanes<L>> w;                 // [T x K] W_t(j)
  std::vector<Lanes<L>> scale;             // [T] s_t, powers of two
  std::vector<Lanes<L>> beta;              // [K] b_t, scratch
  std::vector<Lanes<L>> gamma;             // [K] gamma_t, scratch
  std::array<double, L> log_likelihood{};  // log p(x) per lane; 0 for an empty lane
  std::array<double, L> inv_z{};           // 1 / Z per lane; 0 for an empty or dead lane

  // Grows (never shrinks) the tables for T steps of K states.
  void Reserve(int T, int K);
};

// Runs both passes over the batch: fills work->{emit, alpha, w, scale, log_likelihood, inv_z}
// and writes lane l's posteriors, row-major [len(l) x K], to gamma_rows[l] unless it is null.
// REQUIRES: every symbol in [0, V); batch.length >= 1.
template <int L>
void FbRun(const FbModel& model, const LaneBatch<L>& batch, FbWork<L>* work, const std::array<double*, L>& gamma_rows);

// xi[i * K + j] += sum_{t < T-1} alpha_t(i) W_t+1(j) per lane, T = batch length of the last FbRun.
template <int L>
void FbAddTransitionCounts(const FbWork<L>& work, int K, int T, Lanes<L>* xi);

}  // namespace seqflow

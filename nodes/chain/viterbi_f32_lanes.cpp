#include "nodes/chain/viterbi_f32_lanes.h"

#include <bit>
#include <limits>

#include "engine/base/isa.h"
#include "nodes/common/lane_transpose.h"

namespace seqflow {
namespace {

using F = FloatLanes<kF32Lanes>;
using M = Int32Lanes<kF32Lanes>;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kUnitRoundoff = 0x1p-24f;
constexpr int kRowWidth = 32;  // floats per row of log_a_rows

// GCC's two-source permute by a run-time index vector: out[l] = (a ++ b)[idx[l] mod 2W]. Clang
// (the sanitizer and fuzz build) has no such builtin and gets the same elements one lane at a time.
template <class FP, class MP>
FP Permute2(FP a, FP b, MP idx) {
#if defined(__clang__)
  constexpr int kWidth = sizeof(FP) / sizeof(float);
  FP out;
  for (int l = 0; l < kWidth; ++l) {
    const int k = idx[l] & (2 * kWidth - 1);
    out[l] = k < kWidth ? a[k] : b[k - kWidth];
  }
  return out;
#else
  return __builtin_shuffle(a, b, idx);
#endif
}

void LogEmissionStep(const ViterbiF32Model& model, const LaneBatch<kF32Lanes>& batch, int t, ViterbiF32Work* work) {
  std::array<int64_t, kF32Lanes> column;
  for (int l = 0; l < kF32Lanes; ++l) column[l] = t < batch.len(l) ? batch.obs[l][t] : -1;
  GatherColumns16f(model.log_emission.data(), model.K, column, 0.0f, work->column.data());
}

template <int N>
void Forward(const ViterbiF32Model& model, const LaneBatch<kF32Lanes>& batch, ViterbiF32Work* work) {
  const int K = model.K;
  F* e = work->column.data();
  F* delta = work->delta.data();
  LogEmissionStep(model, batch, 0, work);
  for (int j = 0; j < K; ++j) delta[j] = model.log_initial[j] + e[j];
  for (int t = 1; t < batch.length; ++t) {
    F* d = delta + static_cast<size_t>(t) * K;
    LogEmissionStep(model, batch, t, work);
    LaneMaxPlus<N>(d - K, model.log_a_row_major.data(), K, d, [e](int j, F x) { return x + e[j]; });
  }
}

// Running best, runner-up and lowest argmax over candidates i = first, first + 2, ...
// FP is a native piece of the lanes, MP the same piece of their comparisons.
template <class FP, class MP>
struct Chain {
  FP best;
  FP second;
  MP arg;

  void Add(FP x, int i) {
    const MP better = x > best;
    second = better ? best : (x > second ? x : second);
    best = better ? x : best;
    arg = better ? MP{} + i : arg;
  }
};

// Whether the best candidate of step t beats the runner-up by more than twice the error bound.
template <class FP, class MP>
MP Certain(FP best, FP second, int t) {
  const float c = 2.0f * kUnitRoundoff * static_cast<float>(2 * t + 3);
  const MP clear = best - second > -c * (best + second);  // both <= 0: -(best + second) = |best| + |second|
  return MaskAnd<MP>(best > -kInf, MaskOr<MP>(second == -kInf, clear));
}

// row[idx] for 0 <= idx < kRowWidth in a register narrower than the row: two-source permutes of
// neighbouring pieces of the row (GCC's generic permute takes idx modulo twice the width), then
// selects on the higher bits of idx.
template <class FP, class MP>
FP PermuteRow(const float* row, MP idx) {
  constexpr int kWidth = sizeof(FP) / sizeof(float);
  constexpr int kSources = kRowWidth / kWidth;
  FP level[kSources / 2];
  for (int q = 0; q < kSources / 2; ++q) {
    FP a, b;
    __builtin_memcpy(&a, row + 2 * q * kWidth, sizeof(FP));
    __builtin_memcpy(&b, row + (2 * q + 1) * kWidth, sizeof(FP));
    level[q] = Permute2(a, b, idx);
  }
  for (int n = kSources / 2, bit = 2 * kWidth; n > 1; n /= 2, bit *= 2) {
    const MP high = (idx & bit) != 0;
    for (int q = 0; q < n / 2; ++q) level[q] = high ? level[2 * q + 1] : level[2 * q];
  }
  return level[0];
}

// out[i][l] = log A(i, next[l]) (0 for next[l] = K, past the end). With K < 32 a row of
// log_a_rows fits two AVX-512 registers and one permute serves all lanes (narrower clones permute
// per native piece); else a transposing gather.
template <int N>
void TransitionColumns(const ViterbiF32Model& model, M next, F* out) {
  const int K = model.K;
  if (!model.log_a_rows.empty() && NativePieces<F, N>::kCount > 1) {
    for (int p = 0; p < NativePieces<F, N>::kCount; ++p) {
      const Piece<M, N> idx = LoadPiece<N>(next, p);
      for (int i = 0; i < K; ++i) {
        StorePiece<N>(&out[i], p,
                      PermuteRow<Piece<F, N>>(model.log_a_rows.data() + static_cast<size_t>(i) * kRowWidth, idx));
      }
    }
    return;
  }
  if (!model.log_a_rows.empty()) {
    for (int i = 0; i < K; ++i) {
      const float* row = model.log_a_rows.data() + static_cast<size_t>(i) * kRowWidth;
      F low, high;
      __builtin_memcpy(&low, row, sizeof(F));
      __builtin_memcpy(&high, row + kF32Lanes, sizeof(F));
      out[i] = Permute2(low, high, next);  // GCC's generic permute: vpermt2ps with AVX-512
    }
    return;
  }
  std::array<int64_t, kF32Lanes> column;
  for (int l = 0; l < kF32Lanes; ++l) column[l] = next[l];
  GatherColumns16f(model.log_a_ext.data(), K, column, 0.0f, out);
}

// As viterbi_lanes.cpp's backtrack (lanes together, next = K past a lane's end, even and odd
// chains), plus the runner-up of every decision for the certificate. Per-lane bookkeeping stays
// in vectors; the chosen states go to work->args and become paths at the end. The decisions run
// one native piece of the lanes after the other.
template <int N>
void Backtrack(const ViterbiF32Model& model, const LaneBatch<kF32Lanes>& batch, ViterbiF32Work* work,
               const std::array<int32_t*, kF32Lanes>& paths, std::array<bool, kF32Lanes>* certified) {
  const int K = model.K;
  F* log_a = work->column.data();
  M length, next = M{} + K, all_certain = M{} - 1;
  for (int l = 0; l < kF32Lanes; ++l) length[l] = batch.len(l);
  for (int t = batch.length - 1; t >= 0; --t) {
    const F* d = work->delta.data() + static_cast<size_t>(t) * K;
    TransitionColumns<N>(model, next, log_a);
    M args;
    for (int p = 0; p < NativePieces<F, N>::kCount; ++p) {
      using FP = Piece<F, N>;
      using MP = Piece<M, N>;
      const PieceColumn<N, F> dp{d, p}, ap{log_a, p};
      Chain<FP, MP> even{dp[0] + ap[0], FP{} - kInf, MP{}};
      Chain<FP, MP> odd{FP{} - kInf, FP{} - kInf, MP{}};
      chain_internal::AddCandidates(dp, ap, K, even, odd);
      const MP take_odd = MaskOr<MP>(odd.best > even.best, MaskAnd<MP>(odd.best == even.best, odd.arg < even.arg));
      const FP best = take_odd ? odd.best : even.best;
      const FP loser = take_odd ? even.best : odd.best;
      const FP second = loser > even.second ? loser : even.second;
      const MP certain = Certain<FP, MP>(best, second > odd.second ? second : odd.second, t);
      const MP arg = take_odd ? odd.arg : even.arg;
      const MP valid = t < LoadPiece<N>(length, p);
      StorePiece<N>(&all_certain, p, MaskAnd<MP>(LoadPiece<N>(all_certain, p), MaskOr<MP>(certain, ~valid)));
      StorePiece<N>(&next, p, valid ? arg : LoadPiece<N>(next, p));
      StorePiece<N>(&args, p, arg);
    }
    work->args[t] = args;
  }
  for (int l = 0; l < kF32Lanes; ++l) {
    (*certified)[l] = all_certain[l] != 0;
    for (int t = 0; t < batch.len(l); ++t) paths[l][t] = work->args[t][l];
  }
}

}  // namespace

ViterbiF32Model::ViterbiF32Model(const ChainViterbiModel& exact_model, const double* log_table, int64_t columns)
    : exact(exact_model),
      K(exact_model.K),
      log_initial(exact_model.log_initial.data(), exact_model.log_initial.data() + K),
      log_a_row_major(exact_model.log_a_row_major.data(), exact_model.log_a_row_major.data() + K * K),
      log_a_ext(exact_model.log_a_ext.data(), exact_model.log_a_ext.data() + exact_model.log_a_ext.size()),
      log_emission(log_table, log_table + columns * exact_model.K) {
  // GatherColumns16f reads whole blocks of 16 from a column's start.
  log_a_ext.resize(log_a_ext.size() + kF32Lanes, 0.0f);
  log_emission.resize(log_emission.size() + kF32Lanes, 0.0f);
  if (K + 1 > kRowWidth) return;
  log_a_rows.assign(static_cast<size_t>(K) * kRowWidth, 0.0f);
  for (int i = 0; i < K; ++i) {
    for (int j = 0; j < K; ++j) log_a_rows[static_cast<size_t>(i) * kRowWidth + j] = log_a_row_major[i * K + j];
  }
}

namespace {

template <int N>
void ViterbiF32RunKernel(const ViterbiF32Model& model, const LaneBatch<kF32Lanes>& batch, ViterbiF32Work* work,
                         const std::array<int32_t*, kF32Lanes>& paths, std::array<bool, kF32Lanes>* certified) {
  const int K = model.K;
  const size_t cells = static_cast<size_t>(batch.length) * K;
  if (work->delta.size() < cells) work->delta.resize(cells);
  work->column.resize(K);
  if (work->args.size() < static_cast<size_t>(batch.length)) work->args.resize(batch.length);
  Forward<N>(model, batch, work);
  Backtrack<N>(model, batch, work, paths, certified);
}

}  // namespace

SEQFLOW_ISA_WIDTH_CLONES(void, ViterbiF32Run,
                   (const ViterbiF32Model& model, const LaneBatch<kF32Lanes>& batch, ViterbiF32Work* work,
                    const std::array<int32_t*, kF32Lanes>& paths, std::array<bool, kF32Lanes>* certified),
                   ViterbiF32RunKernel, (model, batch, work, paths, certified))

}  // namespace seqflow

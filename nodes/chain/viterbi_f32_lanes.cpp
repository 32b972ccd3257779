#include "nodes/chain/viterbi_f32_lanes.h"

#include <bit>
#include <limits>

#include "nodes/common/isa.h"
#include "nodes/common/lane_transpose.h"

namespace seqflow {
namespace {

using F = FloatLanes<kF32Lanes>;
using M = Int32Lanes<kF32Lanes>;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kUnitRoundoff = 0x1p-24f;
constexpr int kRowWidth = 32;  // floats per row of log_a_rows

void LogEmissionStep(const ViterbiF32Model& model, const LaneBatch<kF32Lanes>& batch, int t, ViterbiF32Work* work) {
  std::array<int64_t, kF32Lanes> column;
  for (int l = 0; l < kF32Lanes; ++l) column[l] = t < batch.len(l) ? batch.obs[l][t] : -1;
  GatherColumns16f(model.log_emission.data(), model.K, column, 0.0f, work->column.data());
}

void Forward(const ViterbiF32Model& model, const LaneBatch<kF32Lanes>& batch, ViterbiF32Work* work) {
  const int K = model.K;
  F* e = work->column.data();
  F* delta = work->delta.data();
  LogEmissionStep(model, batch, 0, work);
  for (int j = 0; j < K; ++j) delta[j] = model.log_initial[j] + e[j];
  for (int t = 1; t < batch.length; ++t) {
    F* d = delta + static_cast<size_t>(t) * K;
    LogEmissionStep(model, batch, t, work);
    LaneMaxPlus(d - K, model.log_a_row_major.data(), K, d, [e](int j, F x) { return x + e[j]; });
  }
}

// Running best, runner-up and lowest argmax over candidates i = first, first + 2, ...
struct Chain {
  F best;
  F second;
  M arg;

  void Add(F x, int i) {
    const M better = x > best;
    second = better ? best : (x > second ? x : second);
    best = better ? x : best;
    arg = better ? M{} + i : arg;
  }
};

// Whether the best candidate of step t beats the runner-up by more than twice the error bound.
M Certain(F best, F second, int t) {
  const float c = 2.0f * kUnitRoundoff * static_cast<float>(2 * t + 3);
  const M clear = best - second > -c * (best + second);  // both <= 0: -(best + second) = |best| + |second|
  return (best > -kInf) & ((second == -kInf) | clear);
}

// out[i][l] = log A(i, next[l]) (0 for next[l] = K, past the end). With K < 32 a row of
// log_a_rows fits two registers and one permute serves all lanes; else a transposing gather.
void TransitionColumns(const ViterbiF32Model& model, M next, F* out) {
  const int K = model.K;
  if (!model.log_a_rows.empty()) {
    for (int i = 0; i < K; ++i) {
      const float* row = model.log_a_rows.data() + static_cast<size_t>(i) * kRowWidth;
      F low, high;
      __builtin_memcpy(&low, row, sizeof(F));
      __builtin_memcpy(&high, row + kF32Lanes, sizeof(F));
      out[i] = __builtin_shuffle(low, high, next);  // GCC's generic permute: vpermt2ps with AVX-512
    }
    return;
  }
  std::array<int64_t, kF32Lanes> column;
  for (int l = 0; l < kF32Lanes; ++l) column[l] = next[l];
  GatherColumns16f(model.log_a_ext.data(), K, column, 0.0f, out);
}

// As viterbi_lanes.cpp's backtrack (lanes together, next = K past a lane's end, even and odd
// chains), plus the runner-up of every decision for the certificate. Per-lane bookkeeping stays
// in vectors; the chosen states go to work->args and become paths at the end.
void Backtrack(const ViterbiF32Model& model, const LaneBatch<kF32Lanes>& batch, ViterbiF32Work* work,
               const std::array<int32_t*, kF32Lanes>& paths, std::array<bool, kF32Lanes>* certified) {
  const int K = model.K;
  F* log_a = work->column.data();
  M length, next = M{} + K, all_certain = M{} - 1;
  for (int l = 0; l < kF32Lanes; ++l) length[l] = batch.len(l);
  for (int t = batch.length - 1; t >= 0; --t) {
    const F* d = work->delta.data() + static_cast<size_t>(t) * K;
    TransitionColumns(model, next, log_a);
    Chain even{d[0] + log_a[0], F{} - kInf, M{}};
    Chain odd{F{} - kInf, F{} - kInf, M{}};
    chain_internal::AddCandidates(d, log_a, K, even, odd);
    const M take_odd = (odd.best > even.best) | ((odd.best == even.best) & (odd.arg < even.arg));
    const F best = take_odd ? odd.best : even.best;
    const F loser = take_odd ? even.best : odd.best;
    const F second = loser > even.second ? loser : even.second;
    const M certain = Certain(best, second > odd.second ? second : odd.second, t);
    const M arg = take_odd ? odd.arg : even.arg;
    const M valid = t < length;
    all_certain &= certain | ~valid;
    next = valid ? arg : next;
    work->args[t] = arg;
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

void ViterbiF32RunKernel(const ViterbiF32Model& model, const LaneBatch<kF32Lanes>& batch, ViterbiF32Work* work,
                         const std::array<int32_t*, kF32Lanes>& paths, std::array<bool, kF32Lanes>* certified) {
  const int K = model.K;
  const size_t cells = static_cast<size_t>(batch.length) * K;
  if (work->delta.size() < cells) work->delta.resize(cells);
  work->column.resize(K);
  if (work->args.size() < static_cast<size_t>(batch.length)) work->args.resize(batch.length);
  Forward(model, batch, work);
  Backtrack(model, batch, work, paths, certified);
}

}  // namespace

SEQFLOW_ISA_CLONES(void, ViterbiF32Run,
                   (const ViterbiF32Model& model, const LaneBatch<kF32Lanes>& batch, ViterbiF32Work* work,
                    const std::array<int32_t*, kF32Lanes>& paths, std::array<bool, kF32Lanes>* certified),
                   ViterbiF32RunKernel, (model, batch, work, paths, certified))

}  // namespace seqflow

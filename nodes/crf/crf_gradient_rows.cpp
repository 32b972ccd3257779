#include "nodes/crf/crf_gradient_rows.h"

#include <vector>

#include "engine/base/isa.h"
#include "nodes/crf/crf_row_pieces.h"

namespace seqflow {
namespace {

using crf_rows::DispatchBlocks;
using crf_rows::RowPieces;

// Prefetches the marginal row of the occurrence `ahead` places on, across attribute boundaries:
// most attributes fire once, so prefetching within one attribute's list would never fire.
inline void PrefetchOccurrence(const GradientRowInputs& in, int64_t i, int64_t end) {
  constexpr int64_t kAhead = 8;
  if (i + kAhead < end) __builtin_prefetch(in.marginals + static_cast<int64_t>(in.occurrence_token[i + kAhead]) * in.K);
}

double GradientRowsScalar(const GradientRowInputs& in, int64_t begin, int64_t end, double* gradient) {
  const int64_t K = in.K, stop = in.occurrence_start[end];
  std::vector<double> sum(K);
  double squared[8] = {};
  for (int64_t a = begin; a < end; ++a) {
    double* g = gradient + a * K;
    for (int64_t k = 0; k < K; ++k) sum[k] = in.first_block ? 0.0 : g[k];
    for (int64_t i = in.occurrence_start[a]; i < in.occurrence_start[a + 1]; ++i) {
      PrefetchOccurrence(in, i, stop);
      const float* p = in.marginals + static_cast<int64_t>(in.occurrence_token[i]) * K;
      for (int64_t k = 0; k < K; ++k) sum[k] += p[k];
    }
    if (!in.last_block) {
      for (int64_t k = 0; k < K; ++k) g[k] = sum[k];
      continue;
    }
    for (int64_t i = in.gold_start[a]; i < in.gold_start[a + 1]; ++i)
      for (int32_t c = 0; c < in.gold[i].count; ++c) sum[in.gold[i].label] -= 1;
    const double x = in.row_values ? in.row_values[a] : 1.0;
    const double* wa = in.w + a * K;
    for (int64_t k = 0; k < K; ++k) {
      g[k] = x * sum[k] + wa[k] * in.inv_sigma2;
      squared[k % 8] += wa[k] * wa[k];
    }
  }
  double total = 0;
  for (double s : squared) total += s;
  return in.last_block ? 0.5 * in.inv_sigma2 * total : 0.0;
}

// The same with a row's sum held in registers (RowPieces); ‖w‖²'s partial sum k mod 8 is
// element k mod W of piece (k / W) mod (8 / W) of `squared`.
template <int N, int NB, int Tail>
double GradientRowsBlocked(const GradientRowInputs& in, int64_t begin, int64_t end, double* gradient) {
  using Row = RowPieces<N, NB, Tail>;
  using P = typename Row::P;
  constexpr int kSquaredPieces = 8 / Row::kWidth;
  const int64_t K = in.K, stop = in.occurrence_start[end];
  P squared[kSquaredPieces] = {};
  for (int64_t a = begin; a < end; ++a) {
    double* g = gradient + a * K;
    P acc[Row::kCount] = {};
    if (!in.first_block) Row::ForEach([&](auto q) { acc[q] = Row::template Load<decltype(q)::value>(g); });
    for (int64_t i = in.occurrence_start[a]; i < in.occurrence_start[a + 1]; ++i) {
      PrefetchOccurrence(in, i, stop);
      const float* p = in.marginals + static_cast<int64_t>(in.occurrence_token[i]) * K;
      Row::ForEach([&](auto q) { acc[q] += Row::template Load<decltype(q)::value>(p); });
    }
    if (!in.last_block) {
      Row::ForEach([&](auto q) { Row::template Store<decltype(q)::value>(acc[q], g); });
      continue;
    }
    for (int64_t i = in.gold_start[a]; i < in.gold_start[a + 1]; ++i) {
      const int32_t label = in.gold[i].label;
      for (int32_t c = 0; c < in.gold[i].count; ++c) acc[label / Row::kWidth][label % Row::kWidth] -= 1;
    }
    const double x = in.row_values ? in.row_values[a] : 1.0;
    const double* wa = in.w + a * K;
    Row::ForEach([&](auto q) {
      const P wq = Row::template Load<decltype(q)::value>(wa);
      Row::template Store<decltype(q)::value>(x * acc[q] + wq * in.inv_sigma2, g);
      squared[q % kSquaredPieces] += wq * wq;
    });
  }
  double total = 0;
  for (int q = 0; q < kSquaredPieces; ++q)
    for (int l = 0; l < Row::kWidth; ++l) total += squared[q][l];
  return in.last_block ? 0.5 * in.inv_sigma2 * total : 0.0;
}

template <int N>
double GradientRowsKernel(const GradientRowInputs& in, int64_t begin, int64_t end, double* gradient) {
  double penalty = 0;
  const bool blocked = DispatchBlocks(in.K, [&](auto nb, auto tail) {
    penalty = GradientRowsBlocked<N, decltype(nb)::value, decltype(tail)::value>(in, begin, end, gradient);
  });
  return blocked ? penalty : GradientRowsScalar(in, begin, end, gradient);
}

}  // namespace

SEQFLOW_ISA_WIDTH_CLONES(double, GradientRows, (const GradientRowInputs& in, int64_t begin, int64_t end, double* gradient),
                         GradientRowsKernel, (in, begin, end, gradient))

}  // namespace seqflow

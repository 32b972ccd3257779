#include "nodes/chain/viterbi_one_chain.h"

#include <type_traits>

#include "engine/base/isa.h"
#include "nodes/common/lanes.h"

namespace seqflow {
namespace {

// A block of labels is one native register of the clone: W = N / 8 doubles.
template <int W>
inline Lanes<W> LoadBlock(const double* p) {
  Lanes<W> x;
  __builtin_memcpy(&x, p, sizeof(x));
  return x;
}

// The first N <= W doubles at p, then zeros: the last block of a score row of K doubles.
template <int W, int N>
inline Lanes<W> LoadPartialBlock(const double* p) {
  if constexpr (N == W) {
    return LoadBlock<W>(p);
  } else {
    Lanes<W> x = {};
    for (int j = 0; j < N; ++j) x[j] = p[j];
    return x;
  }
}

template <int W>
inline void StoreBlock(double* p, Lanes<W> x) {
  __builtin_memcpy(p, &x, sizeof(x));
}

constexpr int kMaxGroup = 4;  // blocks held in registers at once: 2 accumulators each

// Labels [c0, c0 + G W) of δ_t from δ_{t-1} (`prev`): the max over i in two chains (even and odd
// i) combined at the end, as lanes_internal::Block does for MaxPlus, then + e_t. The last block
// reads `Tail` scores (the rest of its lanes are padding no one reads).
template <int W, int G, int Tail>
inline void StepGroup(const double* prev, const double* log_a, int K, int stride, const double* e, int c0,
                      double* cur) {
  using P = Lanes<W>;
  P even[G], odd[G];
  for (int g = 0; g < G; ++g) even[g] = prev[0] + LoadBlock<W>(log_a + c0 + g * W);
  if (K > 1) {
    for (int g = 0; g < G; ++g) odd[g] = prev[1] + LoadBlock<W>(log_a + stride + c0 + g * W);
  }
  int i = 2;
  for (; i + 1 < K; i += 2) {
    const double* row0 = log_a + static_cast<size_t>(i) * stride + c0;
    const double* row1 = row0 + stride;
    for (int g = 0; g < G; ++g) {
      const P x0 = prev[i] + LoadBlock<W>(row0 + g * W);
      const P x1 = prev[i + 1] + LoadBlock<W>(row1 + g * W);
      even[g] = x0 > even[g] ? x0 : even[g];
      odd[g] = x1 > odd[g] ? x1 : odd[g];
    }
  }
  if (i < K) {
    const double* row0 = log_a + static_cast<size_t>(i) * stride + c0;
    for (int g = 0; g < G; ++g) {
      const P x0 = prev[i] + LoadBlock<W>(row0 + g * W);
      even[g] = x0 > even[g] ? x0 : even[g];
    }
  }
  for (int g = 0; g < G; ++g) {
    const P best = K > 1 ? (odd[g] > even[g] ? odd[g] : even[g]) : even[g];
    const P emit = g + 1 < G ? LoadBlock<W>(e + c0 + g * W) : LoadPartialBlock<W, Tail>(e + c0 + g * W);
    StoreBlock<W>(cur + c0 + g * W, best + emit);
  }
}

// Calls f(integral_constant G, integral_constant Tail) for runtime 1 <= g <= kMaxGroup, 1 <= tail <= W.
template <int W, class F>
inline void DispatchGroup(int g, int tail, F&& f) {
  auto with_tail = [&](auto group) {
    if (tail == W) return f(group, std::integral_constant<int, W>{});
    DispatchTail<W>(tail, [&](auto t) { f(group, t); });
  };
  switch (g) {
    case 1:
      return with_tail(std::integral_constant<int, 1>{});
    case 2:
      return with_tail(std::integral_constant<int, 2>{});
    case 3:
      return with_tail(std::integral_constant<int, 3>{});
    default:
      return with_tail(std::integral_constant<int, kMaxGroup>{});
  }
}

template <int N>
double OneChainViterbiKernel(const OneChainViterbiModel& model, const double* scores, int T, OneChainViterbiWork* work,
                             int32_t* path) {
  constexpr int W = N / 8;
  const int K = model.K, stride = model.stride;
  const double* log_a = model.log_a.data();
  if (work->delta.size() < static_cast<size_t>(T) * stride) work->delta.resize(static_cast<size_t>(T) * stride);
  double* delta = work->delta.data();
  for (int j = 0; j < K; ++j) delta[j] = 0.0 + scores[j];
  const int blocks = (K + W - 1) / W, tail = K - W * (blocks - 1);
  for (int t = 1; t < T; ++t) {
    const double* prev = delta + static_cast<size_t>(t - 1) * stride;
    double* cur = delta + static_cast<size_t>(t) * stride;
    const double* e = scores + static_cast<size_t>(t) * K;
    int b = 0;
    for (; b + kMaxGroup < blocks; b += kMaxGroup) StepGroup<W, kMaxGroup, W>(prev, log_a, K, stride, e, b * W, cur);
    DispatchGroup<W>(blocks - b, tail, [&](auto group, auto tail_width) {
      StepGroup<W, decltype(group)::value, decltype(tail_width)::value>(prev, log_a, K, stride, e, b * W, cur);
    });
  }
  // Backtrack: the lowest i attaining the max, first of δ_{T-1}(i) + 0 (the successor past the
  // end has a zero column, as in viterbi_lanes.cpp), then of δ_t(i) + A(i, y_{t+1}).
  const double* last = delta + static_cast<size_t>(T - 1) * stride;
  int32_t next = 0;
  double best = last[0] + 0.0;
  for (int i = 1; i < K; ++i) {
    const double x = last[i] + 0.0;
    if (x > best) best = x, next = i;
  }
  path[T - 1] = next;
  for (int t = T - 2; t >= 0; --t) {
    const double* d = delta + static_cast<size_t>(t) * stride;
    int32_t arg = 0;
    double top = d[0] + log_a[next];
    for (int i = 1; i < K; ++i) {
      const double x = d[i] + log_a[static_cast<size_t>(i) * stride + next];
      if (x > top) top = x, arg = i;
    }
    path[t] = next = arg;
  }
  return best;
}

}  // namespace

OneChainViterbiModel OneChainViterbiModel::FromLogPotentials(const Eigen::Ref<const RowMatrixXd>& log_transition) {
  OneChainViterbiModel model;
  model.K = static_cast<int>(log_transition.rows());
  model.stride = (model.K + 7) / 8 * 8;
  model.log_a.assign(static_cast<size_t>(model.K) * model.stride, 0.0);
  for (int i = 0; i < model.K; ++i)
    for (int j = 0; j < model.K; ++j) model.log_a[static_cast<size_t>(i) * model.stride + j] = log_transition(i, j);
  return model;
}

SEQFLOW_ISA_WIDTH_CLONES(double, OneChainViterbi,
                         (const OneChainViterbiModel& model, const double* scores, int T, OneChainViterbiWork* work,
                          int32_t* path),
                         OneChainViterbiKernel, (model, scores, T, work, path))

}  // namespace seqflow

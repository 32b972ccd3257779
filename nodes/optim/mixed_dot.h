// Dot products of float or double vectors, accumulated in double in SIMD registers. A plain loop
// summing into one double is a serial chain the compiler may not reorder (no -ffast-math), and
// Eigen does not vectorise float -> double casts inside its reductions: both run one element per
// instruction, and the L-BFGS history passes were compute-bound on exactly that.
// Results depend only on n and the data (fixed lane assignment), not on alignment, threads or the
// instruction-set variant that runs them (mixed_dot.cpp dispatches, engine/base/isa.h).
#pragma once

#include <Eigen/Dense>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "nodes/common/lanes.h"

namespace seqflow {

namespace mixed_dot_internal {

using Vec = Lanes<8>;  // 8 doubles

// The kernels below sum in lanes of 8 doubles (lane l takes the elements j = l mod 8) and run
// each lane vector as native pieces of N bytes (nodes/common/lanes.h): a float vector converted to
// a wider double vector than the target's registers goes through the stack, and the narrower
// clones stalled on it. Lane by lane the arithmetic is the same for every N.
template <int N>
using DoublePiece = Piece<Vec, N>;
template <int N>
inline constexpr int kPieceWidth = NativePieces<Vec, N>::kWidth;

// p[0 .. width) as doubles.
template <int N, class T>
inline DoublePiece<N> LoadAs(const T* p) {
  DoublePiece<N> v;
  if constexpr (std::is_same_v<T, double>) {
    std::memcpy(&v, p, sizeof v);
  } else {
    FloatLanes<kPieceWidth<N>> f;
    std::memcpy(&f, p, sizeof f);
    v = __builtin_convertvector(f, DoublePiece<N>);
  }
  return v;
}

template <int N, class A, class B>
double MixedDotKernel(const A* a, const B* b, Eigen::Index n) {
  constexpr int W = kPieceWidth<N>, C = 8 / W;
  DoublePiece<N> acc[4][C] = {};
  Eigen::Index j = 0;
  for (; j + 32 <= n; j += 32)
    for (int q = 0; q < 4; ++q)
      for (int p = 0; p < C; ++p) acc[q][p] += LoadAs<N>(a + j + 8 * q + W * p) * LoadAs<N>(b + j + 8 * q + W * p);
  for (; j + 8 <= n; j += 8)
    for (int p = 0; p < C; ++p) acc[0][p] += LoadAs<N>(a + j + W * p) * LoadAs<N>(b + j + W * p);
  double total = 0;
  for (int p = 0; p < C; ++p) {
    const DoublePiece<N> sum = (acc[0][p] + acc[1][p]) + (acc[2][p] + acc[3][p]);
    for (int l = 0; l < W; ++l) total += sum[l];
  }
  for (; j < n; ++j) total += static_cast<double>(a[j]) * static_cast<double>(b[j]);
  return total;
}

// v in a history's precision T: single precision flushes the subnormals to zero (their use in
// arithmetic costs a microcode assist each; see CorrectionHistory).
template <class T>
inline T Stored(double v) {
  const T x = static_cast<T>(v);
  if constexpr (std::is_same_v<T, float>) return std::abs(x) < std::numeric_limits<float>::min() ? 0.0f : x;
  return x;
}

// p[i] = Stored(v[i]) for i < width.
template <int N, class T>
inline void StoreAs(T* p, DoublePiece<N> v) {
  if constexpr (std::is_same_v<T, double>) {
    std::memcpy(p, &v, sizeof v);
  } else {
    using Floats = FloatLanes<kPieceWidth<N>>;
    const Floats f = __builtin_convertvector(v, Floats);
    const Floats magnitude = std::bit_cast<Floats>(std::bit_cast<Int32Lanes<kPieceWidth<N>>>(f) & 0x7fffffff);
    const Floats kept = magnitude < std::numeric_limits<float>::min() ? Floats{} : f;
    std::memcpy(p, &kept, sizeof kept);
  }
}

// d[j] = Stored(-γ g[j] + Σ_k (c[k] y[k][j] - a[k] s[k][j])) (the terms added pair by pair, k
// from 0) and y_next[j] = Stored(-g[j]) for j < n, in one pass; returns MixedDot(g, d, n),
// accumulated as MixedDotKernel does while each piece of d is still in registers. y_next may be
// one of the y[k] (each piece is read before it is written); d aliases nothing.
template <int N, class T>
double CombinePairsKernel(const double* g, double gamma, const T* const* y, const T* const* s, const double* c,
                          const double* a, int m, T* d, T* y_next, Eigen::Index n) {
  constexpr int W = kPieceWidth<N>, C = 8 / W;
  auto direction = [&](Eigen::Index j) {
    const DoublePiece<N> gj = LoadAs<N>(g + j);
    DoublePiece<N> acc = -gamma * gj;
    for (int k = 0; k < m; ++k) acc += c[k] * LoadAs<N>(y[k] + j) - a[k] * LoadAs<N>(s[k] + j);
    StoreAs<N>(d + j, acc);
    StoreAs<N>(y_next + j, -gj);
    return gj * LoadAs<N>(d + j);
  };
  DoublePiece<N> dot[4][C] = {};
  Eigen::Index j = 0;
  for (; j + 32 <= n; j += 32)
    for (int q = 0; q < 4; ++q)
      for (int p = 0; p < C; ++p) dot[q][p] += direction(j + 8 * q + W * p);
  for (; j + 8 <= n; j += 8)
    for (int p = 0; p < C; ++p) dot[0][p] += direction(j + W * p);
  double total = 0;
  for (int p = 0; p < C; ++p) {
    const DoublePiece<N> sum = (dot[0][p] + dot[1][p]) + (dot[2][p] + dot[3][p]);
    for (int l = 0; l < W; ++l) total += sum[l];
  }
  for (; j < n; ++j) {
    double acc = -gamma * g[j];
    for (int k = 0; k < m; ++k) acc += c[k] * static_cast<double>(y[k][j]) - a[k] * static_cast<double>(s[k][j]);
    d[j] = Stored<T>(acc);
    y_next[j] = Stored<T>(-g[j]);
    total += g[j] * static_cast<double>(d[j]);
  }
  return total;
}

}  // namespace mixed_dot_internal

// Σ_j a[j] b[j] for j < n.
double MixedDot(const double* a, const double* b, Eigen::Index n);
double MixedDot(const float* a, const double* b, Eigen::Index n);
double MixedDot(const double* a, const float* b, Eigen::Index n);
double MixedDot(const float* a, const float* b, Eigen::Index n);

// L-BFGS's direction over [0, n) from the m stored pairs (CorrectionHistory::Combine):
// d[j] = Stored(-γ g[j] + Σ_k (c[k] y[k][j] - a[k] s[k][j])), y_next[j] = Stored(-g[j]);
// returns Σ_j g[j] d[j] summed as MixedDot sums it. Element by element in a fixed order, so every
// variant computes the same bits. y_next may be one of the y[k]; d aliases nothing.
double CombinePairs(const double* g, double gamma, const double* const* y, const double* const* s, const double* c,
                    const double* a, int m, double* d, double* y_next, Eigen::Index n);
double CombinePairs(const double* g, double gamma, const float* const* y, const float* const* s, const double* c,
                    const double* a, int m, float* d, float* y_next, Eigen::Index n);

}  // namespace seqflow

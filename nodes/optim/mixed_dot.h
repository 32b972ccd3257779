// Dot products of float or double vectors, accumulated in double in SIMD registers. A plain loop
// summing into one double is a serial chain the compiler may not reorder (no -ffast-math), and
// Eigen does not vectorise float -> double casts inside its reductions: both run one element per
// instruction, and the L-BFGS history passes were compute-bound on exactly that.
// Results depend only on n and the data (fixed lane assignment), not on alignment, threads or the
// instruction-set variant that runs them (mixed_dot.cpp dispatches, nodes/common/isa.h).
#pragma once

#include <Eigen/Dense>
#include <cstring>
#include <type_traits>

#include "nodes/common/lanes.h"

namespace seqflow {

namespace mixed_dot_internal {

using Vec = Lanes<8>;  // 8 doubles

template <class T>
inline Vec Load(const T* p) {
  if constexpr (std::is_same_v<T, double>) {
    Vec v;
    std::memcpy(&v, p, sizeof v);
    return v;
  } else {
    FloatLanes<8> f;
    std::memcpy(&f, p, sizeof f);
    return __builtin_convertvector(f, Vec);
  }
}

template <class A, class B>
double MixedDotKernel(const A* a, const B* b, Eigen::Index n) {
  Vec acc[4] = {};
  Eigen::Index j = 0;
  for (; j + 32 <= n; j += 32)
    for (int q = 0; q < 4; ++q) acc[q] += Load(a + j + 8 * q) * Load(b + j + 8 * q);
  for (; j + 8 <= n; j += 8) acc[0] += Load(a + j) * Load(b + j);
  const Vec sum = (acc[0] + acc[1]) + (acc[2] + acc[3]);
  double total = 0;
  for (int l = 0; l < 8; ++l) total += sum[l];
  for (; j < n; ++j) total += static_cast<double>(a[j]) * static_cast<double>(b[j]);
  return total;
}

template <class T>
void AddPairTermsKernel(double* acc, const T* y, const T* s, double c, double a, Eigen::Index n) {
  for (Eigen::Index j = 0; j < n; ++j) acc[j] += c * static_cast<double>(y[j]) - a * static_cast<double>(s[j]);
}

}  // namespace mixed_dot_internal

// Σ_j a[j] b[j] for j < n.
double MixedDot(const double* a, const double* b, Eigen::Index n);
double MixedDot(const float* a, const double* b, Eigen::Index n);
double MixedDot(const double* a, const float* b, Eigen::Index n);
double MixedDot(const float* a, const float* b, Eigen::Index n);

// acc[j] += c y[j] - a s[j] for j < n: L-BFGS's direction, one stored pair at a time (element by
// element, so every variant computes the same bits).
void AddPairTerms(double* acc, const double* y, const double* s, double c, double a, Eigen::Index n);
void AddPairTerms(double* acc, const float* y, const float* s, double c, double a, Eigen::Index n);

}  // namespace seqflow

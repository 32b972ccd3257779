// Forward-mode dual numbers with a compile-time number of derivatives N: the value and N partial
// derivatives in a fixed array, so every operation is a loop of constant length that the compiler
// unrolls and vectorises (Eigen's AutoDiffScalar with a dynamic size loops over a runtime length and
// builds expression temporaries). The operations write into their first argument, so a recurrence
// makes no temporaries (returning duals by value cost a copy and a zero fill each: perf showed
// them as most of the time). Derivatives past the ones seeded stay zero.
// The same functions on double let one template serve values and duals.
#pragma once

#include <array>

namespace seqflow {

template <int N>
struct FixedDual {
  double value = 0;
  std::array<double, N> d{};

  static FixedDual Constant(double v) {
    FixedDual r;
    r.value = v;
    return r;
  }
  // The variable with derivative 1 in direction `index`.
  static FixedDual Variable(double v, int index) {
    FixedDual r = Constant(v);
    r.d[index] = 1;
    return r;
  }
};

template <int N>
void SetZero(FixedDual<N>& x) {
  x.d.fill(0);
  x.value = 0;
}
inline void SetZero(double& x) { x = 0; }

// x += c, a constant.
template <int N>
void Add(FixedDual<N>& x, double c) {
  x.value += c;
}

// out = a b.
template <int N>
void SetProduct(FixedDual<N>& out, const FixedDual<N>& a, const FixedDual<N>& b) {
  for (int k = 0; k < N; ++k) out.d[k] = a.d[k] * b.value + a.value * b.d[k];
  out.value = a.value * b.value;
}
inline void SetProduct(double& out, double a, double b) { out = a * b; }

// acc += a b.
template <int N>
void AddProduct(FixedDual<N>& acc, const FixedDual<N>& a, const FixedDual<N>& b) {
  for (int k = 0; k < N; ++k) acc.d[k] += a.d[k] * b.value + a.value * b.d[k];
  acc.value += a.value * b.value;
}
inline void AddProduct(double& acc, double a, double b) { acc += a * b; }

// acc += a.
template <int N>
void Add(FixedDual<N>& acc, const FixedDual<N>& a) {
  for (int k = 0; k < N; ++k) acc.d[k] += a.d[k];
  acc.value += a.value;
}
inline void Add(double& acc, double a) { acc += a; }

// x = x s.
template <int N>
void Multiply(FixedDual<N>& x, const FixedDual<N>& s) {
  for (int k = 0; k < N; ++k) x.d[k] = x.d[k] * s.value + x.value * s.d[k];
  x.value *= s.value;
}
inline void Multiply(double& x, double s) { x *= s; }

// out = 1 / a; d(1/a) = −da / a².
template <int N>
void SetReciprocal(FixedDual<N>& out, const FixedDual<N>& a) {
  const double r = 1 / a.value;
  const double slope = -(r * r);
  for (int k = 0; k < N; ++k) out.d[k] = slope * a.d[k];
  out.value = r;
}
inline void SetReciprocal(double& out, double a) { out = 1 / a; }

}  // namespace seqflow

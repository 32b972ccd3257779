// Forward-mode dual numbers with a compile-time number of derivatives N: the value and N partial
// derivatives, each operation a few vector instructions of the target's width (classifier_em.cpp
// clones its dual passes per instruction set: engine/base/isa.h). Each derivative of a result
// reads only the same derivative of the operands, so every width computes the same bits. The
// operations write into their first argument, so a recurrence makes no temporaries (returning
// duals by value cost a copy and a zero fill each: perf showed them as most of the time).
// Derivatives past the ones seeded stay zero. The same functions on double let one template
// serve values and duals.
#pragma once

#include <array>
#include <cstring>

#include "nodes/common/lanes.h"

namespace seqflow {

// The derivatives are a plain array; the operations run over it in chunks of `Bytes` bytes — the
// register width of the instruction set the code is compiled for (64 AVX-512, 32 AVX2, 16 SSE:
// SEQFLOW_ISA_WIDTH_CLONES) — loaded into lane vectors (nodes/common/lanes.h) and stored back.
// (A loop over the array was left scalar at N = 16: GCC unrolled it whole before vectorising and
// then could not rule out aliasing; and a 64-byte vector times a scalar is lowered element by
// element on a narrower target, hence the width as a parameter.)
template <int N, int Bytes>
struct FixedDual {
  static constexpr int kPerChunk = Bytes / 8;
  static_assert(N % kPerChunk == 0, "derivatives come in whole chunks");
  using Chunk = Lanes<kPerChunk>;

  // The derivatives first and aligned to the chunk: behind the value (offset 8) every chunk's
  // load and store crossed a cache line (perf: the stores were the dual passes' hottest
  // instructions; 8% of a map evaluation).
  alignas(Bytes) std::array<double, N> d{};
  double value = 0;

  const double* derivatives() const { return d.data(); }
};

namespace fixed_dual_internal {

template <class V>
V Load(const double* p) {
  V v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class V>
void Store(double* p, const V& v) {
  std::memcpy(p, &v, sizeof v);
}

}  // namespace fixed_dual_internal

// For each chunk k of derivatives: out.d[k] = f(loaded chunks). Every load of a chunk comes before
// its store, so `out` may be an operand. The operations read the operands' values into locals
// first: a value read in the expression was reloaded and broadcast again after every chunk's store
// (the compiler cannot tell the store from a write to it), a tenth of the dual passes.
#define SEQFLOW_DUAL_CHUNKS(out, expression)                                 \
  for (int k = 0; k < N; k += FixedDual<N, B>::kPerChunk) {                 \
    using V = typename FixedDual<N, B>::Chunk;                              \
    auto chunk = [&](const FixedDual<N, B>& operand) {                      \
      return fixed_dual_internal::Load<V>(&operand.d[k]);                   \
    };                                                                      \
    fixed_dual_internal::Store<V>(&(out).d[k], expression);                 \
  }

template <int N, int B>
void SetZero(FixedDual<N, B>& x) {
  x.d.fill(0);
  x.value = 0;
}
inline void SetZero(double& x) { x = 0; }

// x += c, a constant.
template <int N, int B>
void Add(FixedDual<N, B>& x, double c) {
  x.value += c;
}

// out = a b.
template <int N, int B>
void SetProduct(FixedDual<N, B>& out, const FixedDual<N, B>& a, const FixedDual<N, B>& b) {
  const double av = a.value, bv = b.value;
  SEQFLOW_DUAL_CHUNKS(out, chunk(a) * bv + av * chunk(b))
  out.value = av * bv;
}
inline void SetProduct(double& out, double a, double b) { out = a * b; }

// acc += a b.
template <int N, int B>
void AddProduct(FixedDual<N, B>& acc, const FixedDual<N, B>& a, const FixedDual<N, B>& b) {
  const double av = a.value, bv = b.value;
  SEQFLOW_DUAL_CHUNKS(acc, chunk(acc) + (chunk(a) * bv + av * chunk(b)))
  acc.value += av * bv;
}
inline void AddProduct(double& acc, double a, double b) { acc += a * b; }

// acc += a.
template <int N, int B>
void Add(FixedDual<N, B>& acc, const FixedDual<N, B>& a) {
  SEQFLOW_DUAL_CHUNKS(acc, chunk(acc) + chunk(a))
  acc.value += a.value;
}
inline void Add(double& acc, double a) { acc += a; }

// x = x s.
template <int N, int B>
void Multiply(FixedDual<N, B>& x, const FixedDual<N, B>& s) {
  const double xv = x.value, sv = s.value;
  SEQFLOW_DUAL_CHUNKS(x, chunk(x) * sv + xv * chunk(s))
  x.value = xv * sv;
}
inline void Multiply(double& x, double s) { x *= s; }

// out = 1 / a; d(1/a) = −da / a².
template <int N, int B>
void SetReciprocal(FixedDual<N, B>& out, const FixedDual<N, B>& a) {
  const double r = 1 / a.value;
  const double slope = -(r * r);
  SEQFLOW_DUAL_CHUNKS(out, slope * chunk(a))
  out.value = r;
}
inline void SetReciprocal(double& out, double a) { out = 1 / a; }

// out = a s, s a constant.
template <int N, int B>
void SetScaled(FixedDual<N, B>& out, const FixedDual<N, B>& a, double s) {
  SEQFLOW_DUAL_CHUNKS(out, chunk(a) * s)
  out.value = a.value * s;
}

#undef SEQFLOW_DUAL_CHUNKS

}  // namespace seqflow

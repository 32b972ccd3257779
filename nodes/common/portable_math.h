// exp, log and their relatives with the same bits on every x86-64 CPU.
//
// glibc picks its exp/log/log1p/sin/... at load time from the CPU (an FMA variant where the CPU
// has FMA), and the variants round differently in the last bit: hashed over 2·10^7 arguments,
// this machine's std::exp and std::log give other bits once the FMA variant is masked with
// GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA. A result that reaches an artifact must not depend on
// the node that computed it, so nodes/ call these instead (tests/numerics_lint.sh enforces it).
//
// The algorithms are fdlibm's (Sun, 1993): argument reduction by a two-part ln 2 and a rational
// approximation, < 1 ulp. The functions are plain C++ with no library call; the build turns
// contraction into FMA off, so every compiler target computes them identically.
// Thread safety: pure functions.
#pragma once

#include <bit>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "nodes/common/lanes.h"

namespace seqflow {

namespace portable_math_internal {

inline constexpr double kLn2Hi = 6.93147180369123816490e-01;  // 0x3fe62e42fee00000: k * kLn2Hi is exact
inline constexpr double kLn2Lo = 1.90821492927058770002e-10;
inline constexpr double kInvLn2 = 1.44269504088896338700e+00;

// The integer type of a double or of a lane vector, so that one template body serves both.
template <class V>
struct IntOf {
  using Type = typename LaneTraits<sizeof(V) / sizeof(double)>::Int;
};
template <>
struct IntOf<double> {
  using Type = int64_t;
};

// A whole 64-byte vector converts between int64 and double directly (AVX-512 has the
// instructions, and its clone computes whole lane vectors); narrower pieces convert through int32
// (values here are below 2^11 in magnitude) or by exponent arithmetic, which AVX2 and SSE have,
// where a direct conversion would run one element at a time. Same values as the scalar casts.
template <class V>
inline constexpr bool kConvertsInt64 = sizeof(V) == 64;

template <class V>
inline V TruncTowardZero(V v) {
  if constexpr (std::is_same_v<V, double>) {
    return static_cast<double>(static_cast<int64_t>(v));
  } else if constexpr (kConvertsInt64<V>) {
    return __builtin_convertvector(__builtin_convertvector(v, typename IntOf<V>::Type), V);
  } else {
    using I32 = Int32Lanes<sizeof(V) / sizeof(double)>;
    return __builtin_convertvector(__builtin_convertvector(v, I32), V);
  }
}

// 1.5 * 2^52: k + kRoundingBias is exact for an integral |k| < 2^51, and its bits are those of
// kRoundingBias plus k.
inline constexpr double kRoundingBias = 0x1.8p52;
inline constexpr int64_t kRoundingBiasBits = 0x4338000000000000;

// The int64 k of an integral double vector k, |k| < 2^51.
template <class V>
inline typename IntOf<V>::Type IntegralToInt(V k) {
  return std::bit_cast<typename IntOf<V>::Type>(k + kRoundingBias) - kRoundingBiasBits;
}

// The double of an int64 vector k, |k| < 2^51.
template <class V>
inline V IntToDouble(typename IntOf<V>::Type k) {
  return std::bit_cast<V>(k + kRoundingBiasBits) - kRoundingBias;
}

// v >> s for v >= 0, or wherever the result's high bits do not matter: a logical shift for
// vectors (AVX2 has no int64 arithmetic shift).
template <class I>
inline I ShiftRight(I v, int s) {
  if constexpr (std::is_same_v<I, int64_t>) {
    return v >> s;
  } else {
    typedef uint64_t U __attribute__((vector_size(sizeof(I))));
    return std::bit_cast<I>(std::bit_cast<U>(v) >> s);
  }
}

// 2^k for integral k in [-1022, 1023].
template <class V>
inline V TwoTo(V k) {
  using I = typename IntOf<V>::Type;
  I bits;
  if constexpr (std::is_same_v<V, double>) {
    bits = static_cast<int64_t>(k);
  } else if constexpr (kConvertsInt64<V>) {
    bits = __builtin_convertvector(k, I);
  } else {
    bits = IntegralToInt<V>(k);
  }
  return std::bit_cast<V>((bits + 1023) << 52);
}

// e^x for a double or for every lane of a vector, with the same bits either way (fdlibm e_exp.c):
// x = k ln2 + r, |r| <= ln2 / 2; e^r = 1 + r + r c / (2 - c) with c = r - r^2 P(r^2); e^x = 2^k e^r.
// Written without branches (every case computed, then selected) so lanes vectorise.
template <class V>
inline V ExpOf(V x) {
  constexpr double kP1 = 1.66666666666666019037e-01, kP2 = -2.77777777770155933842e-03,
                   kP3 = 6.61375632143793436117e-05, kP4 = -1.65339022054652515390e-06,
                   kP5 = 4.13813679705723846039e-08;
  constexpr double kOverflow = 7.09782712893383973096e+02, kUnderflow = -7.45133219101941108420e+02;
  const V zero = V{} * 0.0;
  const V one = zero + 1.0;
  const V xc = x == x ? (x > kOverflow ? zero + kOverflow : (x < kUnderflow ? zero + kUnderflow : x)) : zero;
  const V ax = xc < 0 ? -xc : xc;
  const V sign = xc < 0 ? -one : one;
  const V k = ax > 0.5 * kLn2Hi ? (ax < 1.5 * kLn2Hi ? sign : TruncTowardZero<V>(kInvLn2 * xc + 0.5 * sign)) : zero;
  const V hi = xc - k * kLn2Hi;
  const V lo = k * kLn2Lo;
  const V r = hi - lo;
  const V z = r * r;
  const V c = r - z * (kP1 + z * (kP2 + z * (kP3 + z * (kP4 + z * kP5))));
  const V y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi);
  // Only the last multiplication may round (into the subnormals) or overflow.
  const V k1 = k < -1021 ? k + 1000 : (k > 1023 ? zero + 1023 : k);
  const V f2 = k < -1021 ? zero + 0x1p-1000 : (k > 1023 ? zero + 2.0 : one);
  const V e = (y * TwoTo<V>(k1)) * f2;
  const V inf = zero + std::numeric_limits<double>::infinity();
  return x == x ? (x > kOverflow ? inf : (x < kUnderflow ? zero : (ax < 0x1p-28 ? 1.0 + x : e))) : x;
}

}  // namespace portable_math_internal

// e^x, < 1 ulp.
inline double Exp(double x) { return portable_math_internal::ExpOf<double>(x); }

// e^x in every lane, the same bits as Exp lane by lane. N: the native width in bytes of the
// clone it is compiled into (nodes/common/lanes.h); the lanes are computed in pieces of N bytes.
template <int L, int N = kNativeBytesAvx512>
inline Lanes<L> ExpLanes(Lanes<L> x) {
  return PieceWise<N, Lanes<L>>([](auto p) { return portable_math_internal::ExpOf<decltype(p)>(p); }, x);
}

namespace portable_math_internal {

// Natural logarithm for a double or every lane of a vector, the same bits either way (fdlibm
// e_log.c, < 1 ulp): x = 2^k (1 + f) with sqrt(2)/2 < 1 + f < sqrt(2),
// log(1 + f) = f - f^2/2 + s (f^2/2 + R(s^2)), s = f / (2 + f). Every case is computed, then
// selected, so lanes vectorise.
template <class V>
inline V LogOf(V x) {
  using I = typename IntOf<V>::Type;
  constexpr double kLg1 = 6.666666666666735130e-01, kLg2 = 3.999999999940941908e-01, kLg3 = 2.857142874366239149e-01,
                   kLg4 = 2.222219843214978396e-01, kLg5 = 1.818357216161805012e-01, kLg6 = 1.531383769920937332e-01,
                   kLg7 = 1.479819860511658591e-01;
  const V zero = V{} * 0.0;
  const V inf = zero + std::numeric_limits<double>::infinity();
  const V subnormal_scale = x < std::numeric_limits<double>::min() ? zero + 0x1p54 : zero + 1.0;
  const V xs = x * subnormal_scale;
  const I bits = std::bit_cast<I>(xs);
  // The shifts are logical for vectors (see ShiftRight): they differ from the scalar's only where
  // x's sign bit is set, whose result is selected from x alone at the end.
  I hx = ShiftRight(bits, 32);
  const I k0 = ShiftRight(hx, 20) - 1023 + (x < std::numeric_limits<double>::min() ? I{} - 54 : I{});
  hx &= 0x000fffff;
  const I half = (hx + 0x95f64) & 0x100000;  // 0x100000 when the mantissa is past sqrt(2): halve it
  const I normalized = ((hx | (half ^ 0x3ff00000)) << 32) | (bits & 0xffffffff);
  const I k = k0 + ShiftRight(half, 20);
  const V f = std::bit_cast<V>(normalized) - 1.0;
  V dk;
  if constexpr (std::is_same_v<V, double>) {
    dk = static_cast<double>(k);
  } else if constexpr (kConvertsInt64<V>) {
    dk = __builtin_convertvector(k, V);
  } else {
    dk = IntToDouble<V>(k);
  }
  const auto k_is_zero = k == 0;
  // |f| < 2^-20.
  const V r_small = f * f * (0.5 - 0.33333333333333333 * f);
  const V small = k_is_zero ? f - r_small : dk * kLn2Hi - ((r_small - dk * kLn2Lo) - f);
  const V exact = k_is_zero ? zero : dk * kLn2Hi + dk * kLn2Lo;
  // The rest.
  const V s = f / (2.0 + f);
  const V z = s * s;
  const V w = z * z;
  const V t1 = w * (kLg2 + w * (kLg4 + w * kLg6));
  const V t2 = z * (kLg1 + w * (kLg3 + w * (kLg5 + w * kLg7)));
  const V r = t2 + t1;
  const V hfsq = 0.5 * f * f;
  const V far = k_is_zero ? f - (hfsq - s * (hfsq + r)) : dk * kLn2Hi - ((hfsq - (s * (hfsq + r) + dk * kLn2Lo)) - f);
  const V near = k_is_zero ? f - s * (f - r) : dk * kLn2Hi - ((s * (f - r) - dk * kLn2Lo) - f);
  const V general = ((hx - 0x6147a) | (0x6b851 - hx)) > 0 ? far : near;
  const V finite = ((2 + hx) & 0x000fffff) < 3 ? (f == 0.0 ? exact : small) : general;
  const V nan = zero + std::numeric_limits<double>::quiet_NaN();
  return x != x ? x : (x < 0 ? nan : (x == 0 ? -inf : (x == inf ? inf : finite)));
}

}  // namespace portable_math_internal

// Natural logarithm, < 1 ulp.
inline double Log(double x) { return portable_math_internal::LogOf<double>(x); }

// log x in every lane, the same bits as Log lane by lane; N as for ExpLanes.
template <int L, int N = kNativeBytesAvx512>
inline Lanes<L> LogLanes(Lanes<L> x) {
  return PieceWise<N, Lanes<L>>([](auto p) { return portable_math_internal::LogOf<decltype(p)>(p); }, x);
}

// x[i] = Log(x[i]) for i < n, in lanes of 8 where it can (dispatched: portable_math.cpp).
void LogInPlace(double* x, size_t n);

// log(1 + x), accurate for tiny x: with u = 1 + x rounded, log(u) * x / (u - 1) (Goldberg 1991,
// Theorem 4) cancels the rounding of u.
inline double Log1p(double x) {
  const double u = 1.0 + x;
  if (u == 1.0) return x;
  if (u == std::numeric_limits<double>::infinity()) return u;
  return Log(u) * x / (u - 1.0);
}

// e^x - 1, accurate for tiny x, by the same correction as Log1p.
inline double Expm1(double x) {
  const double u = Exp(x);
  if (u == 1.0) return x;
  const double um1 = u - 1.0;
  if (um1 == -1.0) return -1.0;
  if (u == std::numeric_limits<double>::infinity()) return u;
  return um1 * x / Log(u);
}

// tanh x = -expm1(-2|x|) / (2 + expm1(-2|x|)), with the sign of x.
inline double Tanh(double x) {
  if (x != x) return x;
  const double ax = x < 0 ? -x : x;
  if (ax > 22.0) return x < 0 ? -1.0 : 1.0;
  const double e = Expm1(-2.0 * ax);
  const double t = -e / (2.0 + e);
  return x < 0 ? -t : t;
}

}  // namespace seqflow

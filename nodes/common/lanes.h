// SIMD lanes over sequences: lane l of a Lanes<L> value belongs to sentence l of a batch, so the
// K x K inner loops of a chain dynamic program (forward, backward, Viterbi) run on L sentences at
// once with plain vertical arithmetic — no shuffles, no horizontal sums, any K.
// A time-major table of a batch is laid out [T x K] (entry t * K + j holds state j at step t
// for every lane); T is the longest sentence of the batch and shorter lanes are padded.
// A single sentence is best run in lane 0 of a full-width batch: one AVX-512 instruction costs
// what a scalar one does, while GCC compiles one-element vector types poorly. Moving data between
// per-token and lane layouts (gathers, transposes) is in nodes/common/lane_transpose.h.
// Thread safety: pure functions on caller-owned memory.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <new>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace seqflow {

// GCC/Clang vector extension; an alias template would drop the attribute, hence the trait. The
// alignment is stated because GCC otherwise caps it at the widest vector of the file's target (16
// bytes for the x86-64-v2 baseline) while the AVX-512 clones of a kernel (engine/base/isa.h)
// move whole 64-byte vectors with aligned loads and stores.
template <int L>
struct LaneTraits {
  typedef double Vec __attribute__((vector_size(8 * L), aligned(8 * L)));
  typedef int64_t Int __attribute__((vector_size(8 * L), aligned(8 * L)));  // also the type of comparisons
  typedef float Float __attribute__((vector_size(4 * L), aligned(4 * L)));
  typedef int32_t Int32 __attribute__((vector_size(4 * L), aligned(4 * L)));  // comparisons of Float
};
template <int L>
using Lanes = typename LaneTraits<L>::Vec;
template <int L>
using IntLanes = typename LaneTraits<L>::Int;
template <int L>
using FloatLanes = typename LaneTraits<L>::Float;
template <int L>
using Int32Lanes = typename LaneTraits<L>::Int32;

// sum_k v[k], k < n, as four interleaved partial sums: a chain of n/4 + 2 additions instead of n.
template <int L>
inline Lanes<L> LaneSum(const Lanes<L>* v, int n) {
  Lanes<L> s[4] = {};
  int k = 0;
  for (; k + 4 <= n; k += 4) {
    for (int q = 0; q < 4; ++q) s[q] += v[k + q];
  }
  for (int q = 0; k < n; ++k, ++q) s[q] += v[k];
  return (s[0] + s[1]) + (s[2] + s[3]);
}

// s = 2^-floor(log2 c) for c > 0, by exponent arithmetic: multiplying by s is exact and maps
// c into [1, 2), so a chain's scaling costs no division and log Z one log per sentence. Adds
// floor(log2 c) to *log2_sum in lanes where `valid`.
// The exponent field is taken by a logical shift (the mask makes it equal to an arithmetic one,
// which AVX2 lacks for int64 and GCC would do element by element).
template <int L>
inline Lanes<L> PowerOfTwoScale(Lanes<L> c, IntLanes<L> valid, IntLanes<L>* log2_sum) {
  typedef uint64_t Bits __attribute__((vector_size(8 * L)));
  const IntLanes<L> biased = std::bit_cast<IntLanes<L>>(std::bit_cast<Bits>(c) >> 52) & 0x7ff;
  *log2_sum += valid & (biased - 1023);
  const IntLanes<L> bits = (2046 - biased) << 52;  // biased exponent of 2^(1023 - biased)
  return std::bit_cast<Lanes<L>>(bits);
}

// Native vector widths in bytes of the instruction-set clones of engine/base/isa.h
// (SEQFLOW_ISA_WIDTH_CLONES passes one to its kernel).
inline constexpr int kNativeBytesAvx512 = 64;
inline constexpr int kNativeBytesAvx2 = 32;
inline constexpr int kNativeBytesBaseline = 16;

// A lane vector V as native pieces of N bytes. GCC splits + and * of a vector wider than the
// target's registers into native halves or quarters, but lowers a comparison or a ?: select of
// one element by element (16 vmaxss for a max of 16 floats on AVX2), and int64 compares and
// selects the same. So a kernel compiled for N < sizeof(V) does its compares on pieces:
// elementwise, hence the same bits as on the whole vector, lane by lane.
template <class V, int N>
struct NativePieces {
  using Element = std::remove_cvref_t<decltype(std::declval<V>()[0])>;
  static constexpr int kBytes = N < static_cast<int>(sizeof(V)) ? N : static_cast<int>(sizeof(V));
  typedef Element Piece __attribute__((vector_size(kBytes)));
  static constexpr int kCount = static_cast<int>(sizeof(V)) / kBytes;
  static constexpr int kWidth = kBytes / static_cast<int>(sizeof(Element));
};
template <class V, int N>
using Piece = typename NativePieces<V, N>::Piece;

template <int N, class V>
inline Piece<V, N> LoadPiece(const V& v, int p) {
  Piece<V, N> x;
  __builtin_memcpy(&x, reinterpret_cast<const char*>(&v) + p * sizeof(x), sizeof(x));
  return x;
}
template <int N, class V>
inline void StorePiece(V* v, int p, Piece<V, N> x) {
  __builtin_memcpy(reinterpret_cast<char*>(v) + p * sizeof(x), &x, sizeof(x));
}

// Piece p of every vector of an array: a[i] is LoadPiece<N>(v[i], p).
template <int N, class V>
struct PieceColumn {
  const V* v;
  int p;
  Piece<V, N> operator[](int i) const { return LoadPiece<N>(v[i], p); }
};

// r = f(a, b, ...) computed piece by piece (f elementwise; its result a piece of R).
template <int N, class R, class F, class V, class... W>
inline R PieceWise(const F& f, const V& a, const W&... b) {
  R r;
  for (int p = 0; p < NativePieces<V, N>::kCount; ++p) StorePiece<N>(&r, p, f(LoadPiece<N>(a, p), LoadPiece<N>(b, p)...));
  return r;
}

// a | b and a & b of comparison results (vectors of 0 / -1). Kernel code is compiled in helpers
// for the file's x86-64-v2 target and inlined into the clones after: written as `(x > y) | (z < w)`
// GCC 12 merges the two comparisons into one select condition of the helper's target (a 32- or
// 64-byte vector there has no mask register), and the AVX2 or AVX-512 clone then evaluates that
// condition one element at a time (vcomiss, vpextrd). Through unsigned vectors the comparisons
// stay apart and each is compiled for the clone. Same values either way.
template <class M>
inline M MaskOr(M a, M b) {
  typedef uint32_t Bits __attribute__((vector_size(sizeof(M))));
  return std::bit_cast<M>(std::bit_cast<Bits>(a) | std::bit_cast<Bits>(b));
}
template <class M>
inline M MaskAnd(M a, M b) {
  typedef uint32_t Bits __attribute__((vector_size(sizeof(M))));
  return std::bit_cast<M>(std::bit_cast<Bits>(a) & std::bit_cast<Bits>(b));
}

// std::vector of lane values at their full alignment. std::vector<Lanes<L>> is not enough: a
// template argument drops the alignment attribute (GCC's -Wignored-attributes, silenced for that
// reason in CMakeLists.txt), and the AVX-512 clones load and store whole vectors aligned.
template <class T>
struct LaneAllocator {
  using value_type = T;
  LaneAllocator() = default;
  template <class U>
  LaneAllocator(const LaneAllocator<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(sizeof(T)))); }
  void deallocate(T* p, size_t) { ::operator delete(p, std::align_val_t(sizeof(T))); }
  template <class U>
  bool operator==(const LaneAllocator<U>&) const {
    return true;
  }
};
template <class T>
using LaneVector = std::vector<T, LaneAllocator<T>>;

// 8 doubles: one AVX-512 register, or two AVX2 registers on older CPUs.
inline constexpr int kLanes = 8;

// Up to L sentences run together. Position t of lane l reads column obs[l][t] of the kernel's
// potential table: a symbol's emission column (HMMs), or a row of a per-token score table, in
// which case obs[l] holds row numbers (a span of ChainRowIds in nodes/chain). Unused lanes have
// an empty span.
template <int L>
struct LaneBatch {
  std::array<std::span<const int32_t>, L> obs;
  int length = 0;  // max over lanes of obs[l].size()

  int len(int l) const { return static_cast<int>(obs[l].size()); }
};

// Indices of the non-empty sentences among [begin, end), longest first (ties by index, so the
// order is fully determined), so that cutting the list into runs of L gives batches with little
// padding. `length(i)` is sentence i's length. REQUIRES: end - begin < 2^32 and sentences shorter
// than 2^32 tokens.
template <class Length>
inline std::vector<size_t> LengthSortedOrder(size_t begin, size_t end, Length length) {
  // Sorting packed (longest first, then index) keys touches no sentence during the sort.
  std::vector<uint64_t> keys;
  keys.reserve(end - begin);
  for (size_t i = begin; i < end; ++i) {
    const uint64_t n = length(i);
    if (n > 0) keys.push_back((~n << 32) | (i - begin));
  }
  std::sort(keys.begin(), keys.end());
  std::vector<size_t> order(keys.size());
  for (size_t k = 0; k < keys.size(); ++k) order[k] = begin + (keys[k] & 0xffffffffu);
  return order;
}

inline std::vector<size_t> LengthSortedOrder(const std::vector<std::vector<int32_t>>& sentences, size_t begin,
                                             size_t end) {
  return LengthSortedOrder(begin, end, [&](size_t i) { return sentences[i].size(); });
}

// Calls f(std::integral_constant<int, n>{}) for a runtime 0 < n < Max, so a kernel's tail block
// gets its width at compile time; n == 0 calls nothing.
template <int Max, class F>
inline void DispatchTail(int n, F&& f) {
  if constexpr (Max > 1) {
    if (n == Max - 1) {
      f(std::integral_constant<int, Max - 1>{});
      return;
    }
    DispatchTail<Max - 1>(n, f);
  }
}

namespace lanes_internal {

struct SumProduct {
  template <class V, class S>
  static V First(V v, S m) {
    return v * m;
  }
  template <class V, class S>
  static V Next(V acc, V v, S m) {
    return acc + v * m;
  }
  template <class V>
  static V Combine(V a, V b) {
    return a + b;
  }
};
struct MaxPlus {
  template <class V, class S>
  static V First(V v, S m) {
    return v + m;
  }
  template <class V, class S>
  static V Next(V acc, V v, S m) {
    const V x = v + m;
    return x > acc ? x : acc;
  }
  template <class V>
  static V Combine(V a, V b) {
    return b > a ? b : a;
  }
};

// B output columns [c0, c0 + B) in registers. Two accumulators per column (even and odd k)
// halve the dependency chain, which bounds a chain step when K is small. P is the vector type the
// block computes in (a lane vector, or one native piece of it); load(k) gives v[k] as a P, and
// store(c, x) finishes column c while it is still in a register (a separate pass would reload it
// from memory). S is the matrix element type.
template <class P, class S, int B, class Op, class Load, class Store>
inline void Block(const Load& load, const S* m, int K, int c0, const Store& store) {
  P even[B], odd[B];
  const P first = load(0);
  for (int b = 0; b < B; ++b) even[b] = Op::First(first, m[c0 + b]);
  if (K == 1) {
    for (int b = 0; b < B; ++b) store(c0 + b, even[b]);
    return;
  }
  const P second = load(1);
  for (int b = 0; b < B; ++b) odd[b] = Op::First(second, m[K + c0 + b]);
  int k = 2;
  for (; k + 1 < K; k += 2) {
    const P v0 = load(k), v1 = load(k + 1);
    const S* row0 = m + static_cast<size_t>(k) * K + c0;
    const S* row1 = row0 + K;
    for (int b = 0; b < B; ++b) {
      even[b] = Op::Next(even[b], v0, row0[b]);
      odd[b] = Op::Next(odd[b], v1, row1[b]);
    }
  }
  if (k < K) {
    const S* row0 = m + static_cast<size_t>(k) * K + c0;
    const P v0 = load(k);
    for (int b = 0; b < B; ++b) even[b] = Op::Next(even[b], v0, row0[b]);
  }
  for (int b = 0; b < B; ++b) store(c0 + b, Op::Combine(even[b], odd[b]));
}

// At native width (one register per lane vector, 32 of them on AVX-512) 8 columns x 2
// accumulators cover the add latency x ports. Narrower clones run each native piece of the
// lanes through blocks of 4 columns (8 accumulators of the 16 registers: 8 columns would spill)
// and apply `post` once a block's pieces are all stored. Per lane the arithmetic is the same
// either way. The tail takes one narrower block.
template <class Op, int N, class V, class S, class Post>
inline void Blocks(const V* v, const S* m, int K, V* out, const Post& post) {
  using Pieces = NativePieces<V, N>;
  constexpr int kBlock = Pieces::kCount == 1 ? 8 : 4;
  auto block = [&](auto width, int c0) {
    constexpr int B = decltype(width)::value;
    if constexpr (Pieces::kCount == 1) {
      Block<V, S, B, Op>([v](int k) { return v[k]; }, m, K, c0, [&](int c, V x) { out[c] = post(c, x); });
    } else {
      using P = typename Pieces::Piece;
      for (int p = 0; p < Pieces::kCount; ++p) {
        Block<P, S, B, Op>([v, p](int k) { return LoadPiece<N>(v[k], p); }, m, K, c0,
                           [out, p](int c, P x) { StorePiece<N>(&out[c], p, x); });
      }
      for (int b = 0; b < B; ++b) out[c0 + b] = post(c0 + b, out[c0 + b]);
    }
  };
  int c = 0;
  for (; c + kBlock <= K; c += kBlock) block(std::integral_constant<int, kBlock>{}, c);
  DispatchTail<kBlock>(K - c, [&](auto width) { block(width, c); });
}

}  // namespace lanes_internal

// out[c] = post(c, sum_k v[k] * m[k * K + c]), c < K: one step of a chain in probability space
// (forward: m = A row-major; backward: m = A^T row-major). `post(int c, V x) -> V` applies the
// step's elementwise part (emission, scaling). V = Lanes<L> with S = double, or FloatLanes<L>
// with S = float; N is the clone's native width in bytes (see NativePieces). N has no default:
// an AVX-512 width inside the AVX2 clone spills the accumulators and halves the kernel's speed.
// REQUIRES: K >= 1, out != v.
template <int N, class V, class S, class Post>
inline void LaneMatVec(const V* v, const S* m, int K, V* out, const Post& post) {
  lanes_internal::Blocks<lanes_internal::SumProduct, N>(v, m, K, out, post);
}

// out[c] = post(c, max_k (v[k] + m[k * K + c])): one Viterbi step in log space.
// REQUIRES: K >= 1, out != v.
template <int N, class V, class S, class Post>
inline void LaneMaxPlus(const V* v, const S* m, int K, V* out, const Post& post) {
  lanes_internal::Blocks<lanes_internal::MaxPlus, N>(v, m, K, out, post);
}

}  // namespace seqflow

// Moving per-token vectors in and out of the lane layout of nodes/common/lanes.h, one time step
// at a time, so the moves can be fused into a chain pass and overlap its dependency chain:
//   GatherColumns  lane table rows  <-  one column table[:, c_l] per lane (GatherColumns16f: float)
//   GatherStep     the same for the columns of the symbols at step t (emissions, log emissions)
//   ScatterStep    per-lane rows    <-  lane table row t        (posteriors, back to tokens)
// Both directions are L scalar moves per value in general; for L = 8 (doubles) and 16 (floats)
// they are register transposes written with GCC's generic shuffles, which each instruction-set
// variant compiles for itself (hardware gathers were slower on the machine of bench/RESULTS.md).
// Thread safety: pure functions on caller-owned memory.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "nodes/common/lanes.h"

namespace seqflow {

namespace lanes_internal {
template <int N>
void GatherColumns8(const double* table, int K, const std::array<int64_t, 8>& column, double pad, Lanes<8>* out);
}  // namespace lanes_internal

// out[j][l] = table[column[l] * K + j] for j < K, or `pad` where column[l] < 0.
// `table` is a column-major matrix with K rows (column c = K contiguous values). N: the native
// width in bytes of the clone it is compiled into (nodes/common/lanes.h).
template <int L, int N = kNativeBytesAvx512>
inline void GatherColumns(const double* table, int K, const std::array<int64_t, L>& column, double pad, Lanes<L>* out) {
  if constexpr (L == 8) {
    lanes_internal::GatherColumns8<N>(table, K, column, pad, out);
  } else {
    for (int l = 0; l < L; ++l) {
      const double* col = column[l] >= 0 ? table + column[l] * K : nullptr;
      for (int j = 0; j < K; ++j) out[j][l] = col != nullptr ? col[j] : pad;
    }
  }
}

// GatherColumns of the symbols at step t: out[j][l] = table[obs_l[t] * K + j], `pad` for the
// lanes whose sentence has ended.
template <int L, int N = kNativeBytesAvx512>
inline void GatherStep(const double* table, int K, const LaneBatch<L>& batch, int t, double pad, Lanes<L>* out) {
  std::array<int64_t, L> column;
  for (int l = 0; l < L; ++l) column[l] = t < batch.len(l) ? batch.obs[l][t] : -1;
  GatherColumns<L, N>(table, K, column, pad, out);
}

namespace lanes_internal {

// r[j][l] -> r[l][j] for an 8 x 8 block of doubles: 24 two-vector shuffles (unpack, 2-wide,
// 4-wide), written with GCC's generic shuffles so that every instruction-set variant of a kernel
// (engine/base/isa.h) compiles them for itself: AVX-512 gets vunpck/vpermt2pd.
inline void Transpose8x8(Lanes<8> r[8]) {
  Lanes<8> t[8], u[8];
  for (int p = 0; p < 4; ++p) {
    t[2 * p] = __builtin_shufflevector(r[2 * p], r[2 * p + 1], 0, 8, 2, 10, 4, 12, 6, 14);
    t[2 * p + 1] = __builtin_shufflevector(r[2 * p], r[2 * p + 1], 1, 9, 3, 11, 5, 13, 7, 15);
  }
  for (int h = 0; h < 2; ++h) {                                                                    // rows 0-3, then 4-7
    u[4 * h + 0] = __builtin_shufflevector(t[4 * h + 0], t[4 * h + 2], 0, 1, 8, 9, 4, 5, 12, 13);  // columns 0, 4
    u[4 * h + 1] = __builtin_shufflevector(t[4 * h + 1], t[4 * h + 3], 0, 1, 8, 9, 4, 5, 12, 13);  // columns 1, 5
    u[4 * h + 2] = __builtin_shufflevector(t[4 * h + 0], t[4 * h + 2], 2, 3, 10, 11, 6, 7, 14, 15);  // columns 2, 6
    u[4 * h + 3] = __builtin_shufflevector(t[4 * h + 1], t[4 * h + 3], 2, 3, 10, 11, 6, 7, 14, 15);  // columns 3, 7
  }
  for (int c = 0; c < 4; ++c) {
    r[c] = __builtin_shufflevector(u[c], u[4 + c], 0, 1, 2, 3, 8, 9, 10, 11);
    r[c + 4] = __builtin_shufflevector(u[c], u[4 + c], 4, 5, 6, 7, 12, 13, 14, 15);
  }
}

// r[j][l] -> r[l][j] for a 16 x 16 block of floats: 64 shuffles in four stages (pairs of
// floats, pairs of doubles, then two rounds of 128-bit quarters).
inline void Transpose16x16(FloatLanes<16> r[16]) {
  FloatLanes<16> t[16], u[16];
  for (int p = 0; p < 8; ++p) {
    t[2 * p] =
        __builtin_shufflevector(r[2 * p], r[2 * p + 1], 0, 16, 1, 17, 4, 20, 5, 21, 8, 24, 9, 25, 12, 28, 13, 29);
    t[2 * p + 1] =
        __builtin_shufflevector(r[2 * p], r[2 * p + 1], 2, 18, 3, 19, 6, 22, 7, 23, 10, 26, 11, 27, 14, 30, 15, 31);
  }
  auto lo = [](FloatLanes<16> a, FloatLanes<16> b) {
    return __builtin_shufflevector(a, b, 0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29);
  };
  auto hi = [](FloatLanes<16> a, FloatLanes<16> b) {
    return __builtin_shufflevector(a, b, 2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31);
  };
  for (int q = 0; q < 4; ++q) {  // rows 4q .. 4q+3; u[4q + c] holds columns c, c+4, c+8, c+12
    u[4 * q + 0] = lo(t[4 * q], t[4 * q + 2]);
    u[4 * q + 1] = hi(t[4 * q], t[4 * q + 2]);
    u[4 * q + 2] = lo(t[4 * q + 1], t[4 * q + 3]);
    u[4 * q + 3] = hi(t[4 * q + 1], t[4 * q + 3]);
  }
  for (int c = 0; c < 4; ++c) {
    const FloatLanes<16> x0 = __builtin_shufflevector(u[c], u[4 + c], 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21,
                                                      22, 23),
                         x1 = __builtin_shufflevector(u[c], u[4 + c], 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28,
                                                      29, 30, 31);
    const FloatLanes<16> y0 = __builtin_shufflevector(u[8 + c], u[12 + c], 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20,
                                                      21, 22, 23),
                         y1 = __builtin_shufflevector(u[8 + c], u[12 + c], 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27,
                                                      28, 29, 30, 31);
    r[c] = __builtin_shufflevector(x0, y0, 0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27);
    r[c + 4] = __builtin_shufflevector(x0, y0, 4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28, 29, 30, 31);
    r[c + 8] = __builtin_shufflevector(x1, y1, 0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27);
    r[c + 12] = __builtin_shufflevector(x1, y1, 4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28, 29, 30, 31);
  }
}

// Transpose8x8 in a clone of native width N bytes. Below 64 GCC lowers the 64-byte shuffles of
// Transpose8x8 element by element, so the 8 x 8 block is cut into W x W blocks of native pieces
// (W = 4 doubles on AVX2, 2 on the baseline), each transposed in registers and put in its mirror
// place. Moves only: the same values either way.
template <int N>
inline void Transpose8x8Native(Lanes<8> r[8]) {
  using Pieces = NativePieces<Lanes<8>, N>;
  if constexpr (Pieces::kCount == 1) {
    Transpose8x8(r);
  } else {
    using P = typename Pieces::Piece;
    constexpr int W = Pieces::kWidth;
    constexpr int Q = Pieces::kCount;  // 8 / W
    P in[8][Q];
    for (int j = 0; j < 8; ++j) {
      for (int q = 0; q < Q; ++q) in[j][q] = LoadPiece<N>(r[j], q);
    }
    for (int bi = 0; bi < Q; ++bi) {
      for (int bj = 0; bj < Q; ++bj) {
        P b[W];
        for (int k = 0; k < W; ++k) b[k] = in[bi * W + k][bj];
        if constexpr (W == 4) {
          const P t0 = __builtin_shufflevector(b[0], b[1], 0, 4, 2, 6), t1 = __builtin_shufflevector(b[0], b[1], 1, 5, 3, 7);
          const P t2 = __builtin_shufflevector(b[2], b[3], 0, 4, 2, 6), t3 = __builtin_shufflevector(b[2], b[3], 1, 5, 3, 7);
          b[0] = __builtin_shufflevector(t0, t2, 0, 1, 4, 5);
          b[1] = __builtin_shufflevector(t1, t3, 0, 1, 4, 5);
          b[2] = __builtin_shufflevector(t0, t2, 2, 3, 6, 7);
          b[3] = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);
        } else {
          static_assert(W == 2);
          const P t0 = __builtin_shufflevector(b[0], b[1], 0, 2), t1 = __builtin_shufflevector(b[0], b[1], 1, 3);
          b[0] = t0;
          b[1] = t1;
        }
        for (int k = 0; k < W; ++k) StorePiece<N>(&r[bj * W + k], bi, b[k]);
      }
    }
  }
}

// Per block of 8 rows: eight column loads and one transpose; the last K mod 8 rows value by value
// (a partial vector load costs more than the moves it saves).
template <int N>
inline void GatherColumns8(const double* table, int K, const std::array<int64_t, 8>& column, double pad,
                           Lanes<8>* out) {
  const Lanes<8> pad_v = Lanes<8>{} + pad;
  int j0 = 0;
  for (; j0 + 8 <= K; j0 += 8) {
    Lanes<8> r[8];
    for (int l = 0; l < 8; ++l) {
      if (column[l] >= 0) {
        __builtin_memcpy(&r[l], table + column[l] * K + j0, sizeof(Lanes<8>));
      } else {
        r[l] = pad_v;
      }
    }
    Transpose8x8Native<N>(r);
    for (int j = 0; j < 8; ++j) out[j0 + j] = r[j];
  }
  for (int l = 0; l < 8; ++l) {
    const double* col = column[l] >= 0 ? table + column[l] * K : nullptr;
    for (int j = j0; j < K; ++j) out[j][l] = col != nullptr ? col[j] : pad;
  }
}

}  // namespace lanes_internal

// rows[l][t * K + j] = v[j][l] (converted to Out, double or float) for the lanes with
// t < len[l] and rows[l] != nullptr: the lane table's row t back to per-token rows.
template <class Out, int N = kNativeBytesAvx512>
inline void ScatterRows(const Lanes<8>* v, int K, const std::array<int, 8>& len, int t,
                        const std::array<Out*, 8>& rows) {
  // The lanes to write, found once per step rather than once per block of 8 states.
  std::array<Out*, 8> dst;
  std::array<int, 8> lane_of;
  int active = 0;
  for (int l = 0; l < 8; ++l) {
    if (rows[l] == nullptr || t >= len[l]) continue;
    dst[active] = rows[l] + static_cast<size_t>(t) * K;
    lane_of[active++] = l;
  }
  int j0 = 0;
  for (; j0 + 8 <= K; j0 += 8) {
    Lanes<8> r[8];
    for (int j = 0; j < 8; ++j) r[j] = v[j0 + j];
    lanes_internal::Transpose8x8Native<N>(r);
    for (int a = 0; a < active; ++a) {
      const Lanes<8>& row = r[lane_of[a]];
      for (int j = 0; j < 8; ++j) dst[a][j0 + j] = static_cast<Out>(row[j]);
    }
  }
  for (int a = 0; a < active; ++a) {
    for (int j = j0; j < K; ++j) dst[a][j] = static_cast<Out>(v[j][lane_of[a]]);
  }
}

// ScatterRows for the sentences of a LaneBatch.
template <class Out, int N = kNativeBytesAvx512>
inline void ScatterStep(const Lanes<8>* v, int K, const LaneBatch<8>& batch, int t, const std::array<Out*, 8>& rows) {
  std::array<int, 8> len;
  for (int l = 0; l < 8; ++l) len[l] = batch.len(l);
  ScatterRows<Out, N>(v, K, len, t, rows);
}

// GatherColumns in single precision on 16 lanes: one 16 x 16 transpose per 16 rows, the last
// block too. REQUIRES: 16 floats readable from the start of every column block read, i.e. the
// table padded with 16 floats past its last column (ViterbiF32Model's tables are).
inline void GatherColumns16f(const float* table, int K, const std::array<int64_t, 16>& column, float pad,
                             FloatLanes<16>* out) {
  const FloatLanes<16> pad_v = FloatLanes<16>{} + pad;
  for (int j0 = 0; j0 < K; j0 += 16) {
    const int width = K - j0 < 16 ? K - j0 : 16;
    FloatLanes<16> r[16];
    for (int l = 0; l < 16; ++l) {
      if (column[l] >= 0) {
        __builtin_memcpy(&r[l], table + column[l] * K + j0, sizeof(FloatLanes<16>));
      } else {
        r[l] = pad_v;
      }
    }
    lanes_internal::Transpose16x16(r);
    for (int j = 0; j < width; ++j) out[j0 + j] = r[j];
  }
}

}  // namespace seqflow

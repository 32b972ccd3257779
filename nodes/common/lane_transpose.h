// Moving per-token vectors in and out of the lane layout of nodes/common/lanes.h, one time step
// at a time, so the moves can be fused into a chain pass and overlap its dependency chain:
//   GatherColumns  lane table rows  <-  one column table[:, c_l] per lane (GatherColumns16f: float)
//   GatherStep     the same for the columns of the symbols at step t (emissions, log emissions)
//   ScatterStep    per-lane rows    <-  lane table row t        (posteriors, back to tokens)
// Both directions are L scalar moves per value in general; with AVX-512 and L = 8 they are 8 x 8
// register transposes (hardware gathers were slower on the machine of bench/RESULTS.md).
// Thread safety: pure functions on caller-owned memory.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include "nodes/common/lanes.h"

namespace seqflow {

// out[j][l] = table[column[l] * K + j] for j < K, or `pad` where column[l] < 0.
// `table` is a column-major matrix with K rows (column c = K contiguous values).
template <int L>
inline void GatherColumns(const double* table, int K, const std::array<int64_t, L>& column, double pad, Lanes<L>* out) {
  for (int l = 0; l < L; ++l) {
    const double* col = column[l] >= 0 ? table + column[l] * K : nullptr;
    for (int j = 0; j < K; ++j) out[j][l] = col != nullptr ? col[j] : pad;
  }
}

// GatherColumns of the symbols at step t: out[j][l] = table[obs_l[t] * K + j], `pad` for the
// lanes whose sentence has ended.
template <int L>
inline void GatherStep(const double* table, int K, const LaneBatch<L>& batch, int t, double pad, Lanes<L>* out) {
  std::array<int64_t, L> column;
  for (int l = 0; l < L; ++l) column[l] = t < batch.len(l) ? batch.obs[l][t] : -1;
  GatherColumns<L>(table, K, column, pad, out);
}

#if defined(__AVX512F__)
namespace lanes_internal {

// r[j][l] -> r[l][j] for an 8 x 8 block of doubles: 24 shuffles (unpack, 2-wide, 4-wide).
inline void Transpose8x8(__m512d r[8]) {
  __m512d t[8], u[8];
  for (int p = 0; p < 4; ++p) {
    t[2 * p] = _mm512_unpacklo_pd(r[2 * p], r[2 * p + 1]);
    t[2 * p + 1] = _mm512_unpackhi_pd(r[2 * p], r[2 * p + 1]);
  }
  const __m512i lo = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0);
  const __m512i hi = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
  for (int h = 0; h < 2; ++h) {                                             // rows 0-3, then 4-7
    u[4 * h + 0] = _mm512_permutex2var_pd(t[4 * h + 0], lo, t[4 * h + 2]);  // columns 0, 4
    u[4 * h + 1] = _mm512_permutex2var_pd(t[4 * h + 1], lo, t[4 * h + 3]);  // columns 1, 5
    u[4 * h + 2] = _mm512_permutex2var_pd(t[4 * h + 0], hi, t[4 * h + 2]);  // columns 2, 6
    u[4 * h + 3] = _mm512_permutex2var_pd(t[4 * h + 1], hi, t[4 * h + 3]);  // columns 3, 7
  }
  for (int c = 0; c < 4; ++c) {
    r[c] = _mm512_shuffle_f64x2(u[c], u[4 + c], 0x44);
    r[c + 4] = _mm512_shuffle_f64x2(u[c], u[4 + c], 0xee);
  }
}

// r[j][l] -> r[l][j] for a 16 x 16 block of floats: 64 shuffles in four stages (pairs of
// floats, pairs of doubles, then two rounds of 128-bit lanes).
inline void Transpose16x16(__m512 r[16]) {
  __m512 t[16], u[16];
  for (int p = 0; p < 8; ++p) {
    t[2 * p] = _mm512_unpacklo_ps(r[2 * p], r[2 * p + 1]);
    t[2 * p + 1] = _mm512_unpackhi_ps(r[2 * p], r[2 * p + 1]);
  }
  auto lo = [](__m512 a, __m512 b) {
    return _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(a), _mm512_castps_pd(b)));
  };
  auto hi = [](__m512 a, __m512 b) {
    return _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(a), _mm512_castps_pd(b)));
  };
  for (int q = 0; q < 4; ++q) {  // rows 4q .. 4q+3; u[4q + c] holds columns c, c+4, c+8, c+12
    u[4 * q + 0] = lo(t[4 * q], t[4 * q + 2]);
    u[4 * q + 1] = hi(t[4 * q], t[4 * q + 2]);
    u[4 * q + 2] = lo(t[4 * q + 1], t[4 * q + 3]);
    u[4 * q + 3] = hi(t[4 * q + 1], t[4 * q + 3]);
  }
  for (int c = 0; c < 4; ++c) {
    const __m512 x0 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0x44), x1 = _mm512_shuffle_f32x4(u[c], u[4 + c], 0xee);
    const __m512 y0 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0x44),
                 y1 = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0xee);
    r[c] = _mm512_shuffle_f32x4(x0, y0, 0x88);
    r[c + 4] = _mm512_shuffle_f32x4(x0, y0, 0xdd);
    r[c + 8] = _mm512_shuffle_f32x4(x1, y1, 0x88);
    r[c + 12] = _mm512_shuffle_f32x4(x1, y1, 0xdd);
  }
}

}  // namespace lanes_internal

// Per block of 8 rows: eight (masked) column loads and one transpose.
template <>
inline void GatherColumns<8>(const double* table, int K, const std::array<int64_t, 8>& column, double pad,
                             Lanes<8>* out) {
  const __m512d pad_v = _mm512_set1_pd(pad);
  for (int j0 = 0; j0 < K; j0 += 8) {
    const int width = K - j0 < 8 ? K - j0 : 8;
    const __mmask8 mask = static_cast<__mmask8>((1u << width) - 1);  // never reads past a column
    __m512d r[8];
    for (int l = 0; l < 8; ++l) {
      r[l] = column[l] >= 0 ? _mm512_maskz_loadu_pd(mask, table + column[l] * K + j0) : pad_v;
    }
    lanes_internal::Transpose8x8(r);
    for (int j = 0; j < width; ++j) out[j0 + j] = r[j];
  }
}

#endif

// rows[l][t * K + j] = v[j][l] (converted to Out, double or float) for the lanes with
// t < len[l] and rows[l] != nullptr: the lane table's row t back to per-token rows.
template <class Out>
inline void ScatterRows(const Lanes<8>* v, int K, const std::array<int, 8>& len, int t,
                        const std::array<Out*, 8>& rows) {
#if defined(__AVX512F__) && defined(__AVX512VL__)
  // The lanes to write, found once per step rather than once per block of 8 states.
  std::array<Out*, 8> dst;
  std::array<int, 8> lane_of;
  int active = 0;
  for (int l = 0; l < 8; ++l) {
    if (rows[l] == nullptr || t >= len[l]) continue;
    dst[active] = rows[l] + static_cast<size_t>(t) * K;
    lane_of[active++] = l;
  }
  for (int j0 = 0; j0 < K; j0 += 8) {
    const int width = K - j0 < 8 ? K - j0 : 8;
    __m512d r[8];
    for (int j = 0; j < 8; ++j) r[j] = j < width ? __m512d(v[j0 + j]) : _mm512_setzero_pd();
    lanes_internal::Transpose8x8(r);
    const __mmask8 mask = static_cast<__mmask8>((1u << width) - 1);
    for (int a = 0; a < active; ++a) {
      if constexpr (std::is_same_v<Out, float>) {
        _mm256_mask_storeu_ps(dst[a] + j0, mask, _mm512_cvtpd_ps(r[lane_of[a]]));
      } else {
        _mm512_mask_storeu_pd(dst[a] + j0, mask, r[lane_of[a]]);
      }
    }
  }
#else
  for (int l = 0; l < 8; ++l) {
    if (rows[l] == nullptr || t >= len[l]) continue;
    Out* dst = rows[l] + static_cast<size_t>(t) * K;
    for (int j = 0; j < K; ++j) dst[j] = static_cast<Out>(v[j][l]);
  }
#endif
}

// ScatterRows for the sentences of a LaneBatch.
template <class Out>
inline void ScatterStep(const Lanes<8>* v, int K, const LaneBatch<8>& batch, int t, const std::array<Out*, 8>& rows) {
  std::array<int, 8> len;
  for (int l = 0; l < 8; ++l) len[l] = batch.len(l);
  ScatterRows<Out>(v, K, len, t, rows);
}

// GatherColumns in single precision on 16 lanes (one 16 x 16 transpose per 16 rows).
inline void GatherColumns16f(const float* table, int K, const std::array<int64_t, 16>& column, float pad,
                             FloatLanes<16>* out) {
#if defined(__AVX512F__)
  const __m512 pad_v = _mm512_set1_ps(pad);
  for (int j0 = 0; j0 < K; j0 += 16) {
    const int width = K - j0 < 16 ? K - j0 : 16;
    const __mmask16 mask = static_cast<__mmask16>((1u << width) - 1);  // never reads past a column
    __m512 r[16];
    for (int l = 0; l < 16; ++l) {
      r[l] = column[l] >= 0 ? _mm512_maskz_loadu_ps(mask, table + column[l] * K + j0) : pad_v;
    }
    lanes_internal::Transpose16x16(r);
    for (int j = 0; j < width; ++j) out[j0 + j] = r[j];
  }
#else
  for (int l = 0; l < 16; ++l) {
    const float* col = column[l] >= 0 ? table + column[l] * K : nullptr;
    for (int j = 0; j < K; ++j) out[j][l] = col != nullptr ? col[j] : pad;
  }
#endif
}

}  // namespace seqflow

// A row of K labels held in registers, for the CRF's kernels that sum whole weight or gradient
// rows (the score scatter of crf_likelihood.cpp, the gradient gather of crf_gradient_rows.cpp):
// the label blocks of 8 and the clones' native pieces (nodes/common/lanes.h), dispatched on K.
// Header-only templates; included by kernels compiled per instruction set (isa.h).
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "nodes/common/lanes.h"

namespace seqflow::crf_rows {

using V = Lanes<8>;

// A row of K = 8 (NB - 1) + Tail labels held in native pieces of N bytes (nodes/common/lanes.h):
// W labels per piece, piece i holding labels [W i, W i + W) and zeros past K; the pieces past K
// are left out. Narrower clones would otherwise build each 64-byte vector element by element.
template <int N, int NB, int Tail>
struct RowPieces {
  using P = Piece<V, N>;
  static constexpr int kWidth = NativePieces<V, N>::kWidth;
  static constexpr int kLabels = 8 * (NB - 1) + Tail;
  static constexpr int kCount = (kLabels + kWidth - 1) / kWidth;

  // Labels in piece i (the compiler sees whole pieces as vector moves).
  static constexpr int Taken(int i) { return std::min(kWidth, kLabels - kWidth * i); }

  // Piece i of a row of T (double or float).
  template <int I, class T>
  static P Load(const T* row) {
    P v = {};
    for (int j = 0; j < Taken(I); ++j) v[j] = row[kWidth * I + j];
    return v;
  }
  template <int I>
  static void Store(const P& v, double* row) {
    for (int j = 0; j < Taken(I); ++j) row[kWidth * I + j] = v[j];
  }
  // f(integral_constant<int, i>) for every piece i.
  template <class F>
  static void ForEach(F&& f) {
    [&]<int... I>(std::integer_sequence<int, I...>) { (f(std::integral_constant<int, I>{}), ...); }
    (std::make_integer_sequence<int, kCount>{});
  }
};

// Calls f(integral_constant NB, integral_constant Tail) for K = 8 (NB - 1) + Tail, NB <= 4, and
// returns false for a larger K.
template <class F>
inline bool DispatchBlocks(int64_t K, F&& f) {
  const int nb = static_cast<int>((K + 7) / 8);
  if (nb > 4) return false;
  const int tail = static_cast<int>(K - 8 * (nb - 1));
  auto with_nb = [&](auto blocks) {
    if (tail == 8) return f(blocks, std::integral_constant<int, 8>{});
    DispatchTail<8>(tail, [&](auto t) { f(blocks, t); });
  };
  switch (nb) {
    case 1:
      with_nb(std::integral_constant<int, 1>{});
      break;
    case 2:
      with_nb(std::integral_constant<int, 2>{});
      break;
    case 3:
      with_nb(std::integral_constant<int, 3>{});
      break;
    default:
      with_nb(std::integral_constant<int, 4>{});
      break;
  }
  return true;
}

}  // namespace seqflow::crf_rows

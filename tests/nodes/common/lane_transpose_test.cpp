// The lane gathers and scatters (register transposes) against their one-value-at-a-time
// definitions, for every K up to three blocks, padded lanes and absent rows included; the
// double-precision ones also in the forms for narrower clones (native pieces of 32 and 16 bytes).
#include "nodes/common/lane_transpose.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace seqflow {
namespace lane_transpose_test {

template <int N>
void CheckGatherColumnsOfDoubles() {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> uniform(-1, 1);
  for (int K = 1; K <= 40; ++K) {
    const int columns = 23;
    std::vector<double> table(static_cast<size_t>(K) * columns);
    for (double& x : table) x = uniform(rng);
    std::array<int64_t, 8> column;
    for (int l = 0; l < 8; ++l) column[l] = l % 3 == 2 ? -1 : (l * 5) % columns;
    LaneVector<Lanes<8>> out(K);
    GatherColumns<8, N>(table.data(), K, column, 9.5, out.data());
    for (int j = 0; j < K; ++j) {
      for (int l = 0; l < 8; ++l) {
        const double want = column[l] < 0 ? 9.5 : table[column[l] * K + j];
        ASSERT_EQ(out[j][l], want) << "N=" << N << " K=" << K << " j=" << j << " l=" << l;
      }
    }
  }
}

TEST(LaneTranspose, GatherColumnsOfDoublesOnNativePieces) {
  CheckGatherColumnsOfDoubles<kNativeBytesAvx2>();
  CheckGatherColumnsOfDoubles<kNativeBytesBaseline>();
}

TEST(LaneTranspose, GatherColumnsOfDoublesAndFloats) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> uniform(-1, 1);
  for (int K = 1; K <= 40; ++K) {
    const int columns = 23;
    std::vector<double> table(static_cast<size_t>(K) * columns);
    std::vector<float> table_f(table.size() + 16, -7.0f);  // padded as GatherColumns16f requires
    for (size_t i = 0; i < table.size(); ++i) table_f[i] = static_cast<float>(table[i] = uniform(rng));
    std::array<int64_t, 8> column8;
    std::array<int64_t, 16> column16;
    for (int l = 0; l < 16; ++l) {
      const int64_t c = l % 5 == 4 ? -1 : (l * 7) % columns;  // every fifth lane padded
      if (l < 8) column8[l] = c;
      column16[l] = c;
    }
    LaneVector<Lanes<8>> out(K);
    GatherColumns<8>(table.data(), K, column8, 9.5, out.data());
    LaneVector<FloatLanes<16>> out_f(K);
    GatherColumns16f(table_f.data(), K, column16, 9.5f, out_f.data());
    for (int j = 0; j < K; ++j) {
      for (int l = 0; l < 16; ++l) {
        const float want_f = column16[l] < 0 ? 9.5f : table_f[column16[l] * K + j];
        ASSERT_EQ(out_f[j][l], want_f) << "K=" << K << " j=" << j << " l=" << l;
        if (l >= 8) continue;
        const double want = column8[l] < 0 ? 9.5 : table[column8[l] * K + j];
        ASSERT_EQ(out[j][l], want) << "K=" << K << " j=" << j << " l=" << l;
      }
    }
  }
}

template <class Out, int N>
void CheckScatter() {
  for (int K = 1; K <= 24; ++K) {
    LaneVector<Lanes<8>> v(K);
    for (int j = 0; j < K; ++j)
      for (int l = 0; l < 8; ++l) v[j][l] = 100.0 * j + l + 0.25;
    const int t = 2;
    const std::array<int, 8> len = {3, 2, 5, 3, 9, 1, 3, 4};  // lanes 1 and 5 have ended at t
    std::vector<std::vector<Out>> storage(8, std::vector<Out>(static_cast<size_t>(10) * K, Out(-1)));
    std::array<Out*, 8> rows{};
    for (int l = 0; l < 8; ++l) rows[l] = l == 6 ? nullptr : storage[l].data();
    ScatterRows<Out, N>(v.data(), K, len, t, rows);
    for (int l = 0; l < 8; ++l) {
      for (int j = 0; j < K; ++j) {
        const bool written = l != 6 && t < len[l];
        const Out want = written ? static_cast<Out>(v[j][l]) : Out(-1);
        ASSERT_EQ(storage[l][static_cast<size_t>(t) * K + j], want) << "N=" << N << " K=" << K << " l=" << l << " j=" << j;
      }
    }
  }
}

TEST(LaneTranspose, ScatterRowsToDoubleAndFloatRows) {
  for (auto check : {CheckScatter<double, kNativeBytesAvx512>, CheckScatter<float, kNativeBytesAvx512>,
                     CheckScatter<double, kNativeBytesAvx2>, CheckScatter<float, kNativeBytesAvx2>,
                     CheckScatter<double, kNativeBytesBaseline>, CheckScatter<float, kNativeBytesBaseline>}) {
    check();
  }
}

}  // namespace lane_transpose_test
}  // namespace seqflow

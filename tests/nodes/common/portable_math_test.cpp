#include "nodes/common/portable_math.h"

#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <random>
#include <vector>

namespace seqflow {
namespace portable_math_test {

constexpr double kInf = std::numeric_limits<double>::infinity();

// |y - exact| in units of the last place of the double nearest exact; x87 long double (64-bit
// mantissa) stands in for the exact value.
double UlpError(double y, long double exact) {
  const double rounded = static_cast<double>(exact);
  const double ulp = std::nextafter(std::fabs(rounded), kInf) - std::fabs(rounded);
  return static_cast<double>(std::fabs(static_cast<long double>(y) - exact) / ulp);
}

template <class Ours, class Exact>
double MaxUlpError(double lo, double hi, int samples, Ours ours, Exact exact) {
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> uniform(lo, hi);
  double worst = 0;
  for (int i = 0; i < samples; ++i) {
    const double x = uniform(rng);
    worst = std::max(worst, UlpError(ours(x), exact(x)));
  }
  return worst;
}

TEST(PortableMath, ExpIsWithinOneUlpOverItsWholeRange) {
  auto ours = [](double x) { return Exp(x); };
  auto exact = [](double x) { return std::exp(static_cast<long double>(x)); };
  EXPECT_LT(MaxUlpError(-0.35, 0.35, 200000, ours, exact), 1.0);
  EXPECT_LT(MaxUlpError(-40, 40, 200000, ours, exact), 1.0);
  EXPECT_LT(MaxUlpError(-708, 709.7, 200000, ours, exact), 1.0);
  EXPECT_LT(MaxUlpError(-1e-9, 1e-9, 10000, ours, exact), 1.0);
}

TEST(PortableMath, ExpAtTheEdges) {
  EXPECT_EQ(Exp(0.0), 1.0);
  EXPECT_EQ(Exp(-kInf), 0.0);
  EXPECT_EQ(Exp(kInf), kInf);
  EXPECT_EQ(Exp(710.0), kInf);
  EXPECT_EQ(Exp(-746.0), 0.0);
  EXPECT_TRUE(std::isnan(Exp(std::nan(""))));
  EXPECT_GT(Exp(-744.0), 0.0);  // subnormal results are kept
  EXPECT_NEAR(Exp(-744.0) / 1e-323, std::exp(-744.0) / 1e-323, 0.1);
  EXPECT_LT(UlpError(Exp(709.78), std::exp(static_cast<long double>(709.78))), 1.0);
  EXPECT_LT(UlpError(Exp(1.0), std::exp(static_cast<long double>(1.0))), 1.0);
}

TEST(PortableMath, ExpLanesHasTheScalarBitsInEveryLane) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> uniform(-750, 712);
  const double specials[] = {0.0, -0.0, 1e-30, -1e-300, kInf, -kInf, std::nan(""), 709.78, -745.1, 0.3465, -0.3466};
  for (int round = 0; round < 20000; ++round) {
    Lanes<8> x;
    for (int l = 0; l < 8; ++l) x[l] = round == 0 ? specials[l] : uniform(rng) / (l % 3 == 0 ? 1.0 : 97.0);
    // In pieces of 16, 32 and 64 bytes, as the instruction-set clones compute them.
    const std::array<Lanes<8>, 3> ys = {ExpLanes<8, 16>(x), ExpLanes<8, 32>(x), ExpLanes<8, 64>(x)};
    for (const Lanes<8>& y : ys) {
      for (int l = 0; l < 8; ++l) {
        const double want = Exp(x[l]);
        ASSERT_TRUE(std::bit_cast<uint64_t>(y[l]) == std::bit_cast<uint64_t>(want) || (want != want && y[l] != y[l]))
            << x[l];
      }
    }
  }
}

TEST(PortableMath, LogIsWithinOneUlpOverItsWholeRange) {
  auto ours = [](double x) { return Log(x); };
  auto exact = [](double x) { return std::log(static_cast<long double>(x)); };
  EXPECT_LT(MaxUlpError(0.7, 1.42, 200000, ours, exact), 1.0);
  EXPECT_LT(MaxUlpError(1 - 1e-6, 1 + 1e-6, 100000, ours, exact), 1.0);
  EXPECT_LT(MaxUlpError(1e-300, 1e-290, 100000, ours, exact), 1.0);
  EXPECT_LT(MaxUlpError(1e-3, 1e6, 200000, ours, exact), 1.0);
  EXPECT_LT(MaxUlpError(1e300, 1.7e308, 100000, ours, exact), 1.0);
}

TEST(PortableMath, LogLanesAndLogInPlaceHaveTheScalarBits) {
  std::mt19937_64 rng(8);
  std::uniform_real_distribution<double> exponent(-330, 310);
  std::vector<double> x = {0.0,
                           -0.0,
                           -1.0,
                           kInf,
                           -kInf,
                           std::nan(""),
                           4.9406564584124654e-324,
                           2.2250738585072014e-308,
                           1.0,
                           1.0 + 1e-12,
                           1.0 - 1e-12,
                           0.70710678118654757,
                           1.4142135623730951,
                           2.0};
  for (int i = 0; i < 200000; ++i) x.push_back(std::pow(10.0, exponent(rng)) * (i % 7 == 0 ? 1.0 : 1.0 + i * 1e-7));
  std::vector<double> in_place = x;
  LogInPlace(in_place.data(), in_place.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const double want = Log(x[i]);
    ASSERT_TRUE(std::bit_cast<uint64_t>(in_place[i]) == std::bit_cast<uint64_t>(want) ||
                (want != want && in_place[i] != in_place[i]))
        << x[i];
  }
  for (size_t i = 0; i + 8 <= x.size(); i += 8) {
    Lanes<8> v;
    for (int l = 0; l < 8; ++l) v[l] = x[i + l];
    const std::array<Lanes<8>, 3> ys = {LogLanes<8, 16>(v), LogLanes<8, 32>(v), LogLanes<8, 64>(v)};
    for (const Lanes<8>& y : ys) {
      for (int l = 0; l < 8; ++l) {
        const double want = Log(x[i + l]);
        ASSERT_TRUE(std::bit_cast<uint64_t>(y[l]) == std::bit_cast<uint64_t>(want) || (want != want && y[l] != y[l]))
            << x[i + l];
      }
    }
  }
}

TEST(PortableMath, LogAtTheEdges) {
  EXPECT_EQ(Log(1.0), 0.0);
  EXPECT_EQ(Log(0.0), -kInf);
  EXPECT_EQ(Log(kInf), kInf);
  EXPECT_TRUE(std::isnan(Log(-1.0)));
  EXPECT_TRUE(std::isnan(Log(std::nan(""))));
  EXPECT_EQ(Log(2.0), std::numbers::ln2);
  const double denormal = 4.9406564584124654e-324;
  EXPECT_LT(UlpError(Log(denormal), std::log(static_cast<long double>(denormal))), 1.0);
}

TEST(PortableMath, Log1pExpm1AndTanhAreAccurateNearZeroAndBeyond) {
  for (double x : {1e-300, 1e-17, -3e-12, 1e-8, -0.3, 0.7, 5.0, 40.0}) {
    EXPECT_LT(UlpError(Log1p(std::fabs(x)), std::log1p(static_cast<long double>(std::fabs(x)))), 4.0) << x;
    EXPECT_LT(UlpError(Expm1(x), std::expm1(static_cast<long double>(x))), 4.0) << x;
    EXPECT_LT(UlpError(Tanh(x), std::tanh(static_cast<long double>(x))), 4.0) << x;
  }
  EXPECT_EQ(Log1p(-1.0), -kInf);
  EXPECT_EQ(Log1p(kInf), kInf);
  EXPECT_EQ(Expm1(kInf), kInf);
  EXPECT_EQ(Expm1(-kInf), -1.0);
  EXPECT_EQ(Tanh(-30.0), -1.0);
  EXPECT_EQ(Tanh(0.0), 0.0);
}

}  // namespace portable_math_test
}  // namespace seqflow

#include "nodes/common/log_sum_exp.h"

#include <gtest/gtest.h>

#include <limits>

namespace seqflow {
namespace log_sum_exp_test {

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(LogSumExp, EqualsTheNaiveFormWhereThatIsSafe) {
  Eigen::ArrayXd x(4);
  x << -1.5, 0.25, 2.0, -30.0;
  EXPECT_NEAR(LogSumExp(x), std::log(x.exp().sum()), 1e-14);
}

TEST(LogSumExp, NeitherOverflowsNorUnderflows) {
  Eigen::ArrayXd big(2), small(2);
  big << 1000.0, 1000.0;
  small << -1000.0, -1000.0;
  EXPECT_DOUBLE_EQ(LogSumExp(big), 1000.0 + std::log(2.0));
  EXPECT_DOUBLE_EQ(LogSumExp(small), -1000.0 + std::log(2.0));
}

TEST(LogSumExp, AllMinusInfinityOrEmptyIsMinusInfinityNotNan) {
  Eigen::ArrayXd none(0), dead(3);
  dead.setConstant(-kInf);
  EXPECT_EQ(LogSumExp(none), -kInf);
  EXPECT_EQ(LogSumExp(dead), -kInf);
}

TEST(LogAddExp, IsSymmetricAndAbsorbsMinusInfinity) {
  EXPECT_DOUBLE_EQ(LogAddExp(0.5, -2.0), LogAddExp(-2.0, 0.5));
  EXPECT_NEAR(LogAddExp(0.5, -2.0), std::log(std::exp(0.5) + std::exp(-2.0)), 1e-15);
  EXPECT_EQ(LogAddExp(-kInf, 3.0), 3.0);
  EXPECT_EQ(LogAddExp(-kInf, -kInf), -kInf);
}

}  // namespace log_sum_exp_test
}  // namespace seqflow

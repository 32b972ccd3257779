#include "nodes/optim/example_qp.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace example_qp_test {

constexpr double kInf = std::numeric_limits<double>::infinity();

double Objective(const Eigen::MatrixXd& Q, const Eigen::VectorXd& b, const Eigen::VectorXd& a) {
  return 0.5 * a.dot(Q * a) - b.dot(a);
}

// The KKT conditions of min ½αᵀQα − bᵀα, α ≥ 0, Σα ≤ cap, checked in their textbook form with the
// multiplier recovered from the largest support coordinate.
void ExpectKkt(const Eigen::MatrixXd& Q, const Eigen::VectorXd& b, double cap, const Eigen::VectorXd& a) {
  const double tol = 1e-8;
  const Eigen::VectorXd g = Q * a - b;
  Eigen::Index top;
  a.maxCoeff(&top);
  const bool capped = std::isfinite(cap);
  const double mu = capped && a[top] > tol ? std::max(0.0, -g[top]) : (capped ? std::max(0.0, -g.minCoeff()) : 0.0);
  EXPECT_GE(mu, 0);
  for (Eigen::Index j = 0; j < a.size(); ++j) {
    EXPECT_GE(a[j], -tol) << "primal feasibility, j = " << j;
    EXPECT_GE(g[j] + mu, -tol) << "dual feasibility, j = " << j;
    if (a[j] > tol) {
      EXPECT_NEAR(g[j] + mu, 0, tol) << "complementarity, j = " << j;
    }
  }
  if (capped) {
    EXPECT_LE(a.sum(), cap + tol);
    EXPECT_NEAR(mu * (cap - a.sum()), 0, tol) << "the sum constraint's complementarity";
  }
}

// Q = GᵀG with G of `rank` rows: positive semidefinite, singular when rank < n (collinear ΔΦ).
Eigen::MatrixXd RandomGram(int n, int rank, std::mt19937& rng) {
  std::normal_distribution<double> normal(0, 1);
  Eigen::MatrixXd G(rank, n);
  for (Eigen::Index i = 0; i < G.size(); ++i) G.data()[i] = normal(rng);
  return G.transpose() * G;
}

TEST(ExampleQp, TextbookCases) {
  // ½|α|² − α1 − 2α2 with α1 + α2 ≤ 1: α = b − μ on the support, μ = 1, α = (0, 1).
  const Eigen::MatrixXd I = Eigen::MatrixXd::Identity(2, 2);
  Result<Eigen::VectorXd> a = SolveExampleQp(I, Eigen::Vector2d(1, 2), 1.0, {});
  ASSERT_OK(a);
  EXPECT_NEAR(a.value()[0], 0, 1e-9);
  EXPECT_NEAR(a.value()[1], 1, 1e-9);
  // Cap not reached: the unconstrained minimiser b.
  a = SolveExampleQp(I, Eigen::Vector2d(1, 2), 10.0, {});
  ASSERT_OK(a);
  EXPECT_NEAR(a.value()[0], 1, 1e-9);
  EXPECT_NEAR(a.value()[1], 2, 1e-9);
  // 2-norm form (Q + I/C, no cap): α = b / (1 + 1/C) where b > 0, 0 where b < 0.
  a = SolveExampleQp(I * 1.5, Eigen::Vector2d(3, -1), kInf, {});
  ASSERT_OK(a);
  EXPECT_NEAR(a.value()[0], 2, 1e-9);
  EXPECT_NEAR(a.value()[1], 0, 1e-9);
}

TEST(ExampleQp, RandomProblemsSatisfyKktAndBeatFeasiblePoints) {
  std::mt19937 rng(7);
  std::normal_distribution<double> normal(0, 1);
  std::uniform_real_distribution<double> unit(0, 1);
  for (int trial = 0; trial < 300; ++trial) {
    const int n = 1 + trial % 6;
    const int rank = 1 + static_cast<int>(rng() % static_cast<unsigned>(n + 1));
    const Eigen::MatrixXd Q = RandomGram(n, rank, rng) + (trial % 3 == 2 ? 0.5 : 0.0) * Eigen::MatrixXd::Identity(n, n);
    Eigen::VectorXd b(n);
    for (int j = 0; j < n; ++j) b[j] = 1 + normal(rng);
    // Capped (active or not) for the 1-norm machine; uncapped with a ridge for the 2-norm one.
    const double cap = trial % 3 == 2 ? kInf : (trial % 3 == 0 ? 0.1 : 5.0);
    Eigen::VectorXd start = trial % 2 ? Eigen::VectorXd::Constant(n, 0.3) : Eigen::VectorXd();
    SCOPED_TRACE(testing::Message() << "trial " << trial << ", n " << n << ", rank " << rank << ", cap " << cap);
    Result<Eigen::VectorXd> a = SolveExampleQp(Q, b, cap, start);
    ASSERT_OK(a);
    ExpectKkt(Q, b, cap, a.value());
    EXPECT_LE(ExampleQpKktViolation(Q, b, cap, a.value()), 1e-9);
    const double best = Objective(Q, b, a.value());
    for (int k = 0; k < 200; ++k) {
      Eigen::VectorXd p(n);
      for (int j = 0; j < n; ++j) p[j] = unit(rng) * (std::isfinite(cap) ? cap : 3.0);
      if (std::isfinite(cap) && p.sum() > cap) p *= cap / p.sum() * unit(rng);
      EXPECT_GE(Objective(Q, b, p), best - 1e-9);
    }
  }
}

TEST(ExampleQp, ZeroCapGivesZero) {
  Result<Eigen::VectorXd> a = SolveExampleQp(Eigen::MatrixXd::Identity(3, 3), Eigen::Vector3d(1, 2, 3), 0.0, {});
  ASSERT_OK(a);
  EXPECT_EQ(a.value(), Eigen::Vector3d::Zero());
}

TEST(ExampleQp, BadInputIsAnError) {
  Eigen::MatrixXd Q = Eigen::MatrixXd::Identity(2, 2);
  EXPECT_EQ(SolveExampleQp(Q, Eigen::Vector3d(1, 2, 3), 1.0, {}).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(SolveExampleQp(Q, Eigen::Vector2d(1, 2), -1.0, {}).status().code(), StatusCode::kInvalid);
  Q(0, 1) = 1;
  EXPECT_EQ(SolveExampleQp(Q, Eigen::Vector2d(1, 2), 1.0, {}).status().code(), StatusCode::kInvalid);
  Q(0, 1) = std::nan("");
  EXPECT_EQ(SolveExampleQp(Q, Eigen::Vector2d(1, 2), 1.0, {}).status().code(), StatusCode::kNumerical);
}

}  // namespace example_qp_test
}  // namespace seqflow

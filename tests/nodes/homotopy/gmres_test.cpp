// Restarted GMRES on random nonsymmetric systems, against a dense LU solve.
#include "nodes/homotopy/gmres.h"

#include <gtest/gtest.h>

#include "nodes/common/random.h"

namespace seqflow {
namespace {

// I + scale · G with G uniform on [-1, 1): nonsymmetric, eigenvalues spread around 1.
Eigen::MatrixXd RandomSystem(int n, double scale, uint64_t seed) {
  Rng rng = ShardRng(seed, 0);
  Eigen::MatrixXd a(n, n);
  for (Eigen::Index i = 0; i < a.size(); ++i) a.data()[i] = scale * (2 * Uniform01(rng) - 1);
  a.diagonal().array() += 1.0;
  return a;
}

Eigen::VectorXd RandomVector(int n, uint64_t seed) {
  Rng rng = ShardRng(seed, 1);
  Eigen::VectorXd v(n);
  for (Eigen::Index i = 0; i < n; ++i) v[i] = 2 * Uniform01(rng) - 1;
  return v;
}

LinearOperator Product(const Eigen::MatrixXd& a) {
  return [&a](const Eigen::VectorXd& x) -> Eigen::VectorXd { return a * x; };
}

TEST(Gmres, FullGmresSolvesInAtMostNSteps) {
  const int n = 40;
  const Eigen::MatrixXd a = RandomSystem(n, 0.3, 1);
  const Eigen::VectorXd b = RandomVector(n, 2);
  const GmresResult r = Gmres(Product(a), b, {}, {n, 10 * n, 1e-12});
  EXPECT_TRUE(r.converged);
  EXPECT_LE(r.iterations, n);
  const Eigen::VectorXd want = a.partialPivLu().solve(b);
  EXPECT_LE((r.x - want).norm(), 1e-10 * want.norm());
  EXPECT_LE((b - a * r.x).norm(), 1e-12 * b.norm());
}

TEST(Gmres, RestartedGmresConverges) {
  const int n = 60;
  const Eigen::MatrixXd a = RandomSystem(n, 0.1, 3);
  const Eigen::VectorXd b = RandomVector(n, 4);
  const GmresResult r = Gmres(Product(a), b, {}, {5, 2000, 1e-11});
  EXPECT_TRUE(r.converged);
  EXPECT_GT(r.iterations, 5);  // needed more than one cycle
  EXPECT_LE(r.relative_residual, 1e-11);
  EXPECT_LE((r.x - a.partialPivLu().solve(b)).norm(), 1e-9);
}

TEST(Gmres, StopsAtTheIterationBudget) {
  const int n = 50;
  const Eigen::MatrixXd a = RandomSystem(n, 0.5, 5);
  const Eigen::VectorXd b = RandomVector(n, 6);
  const GmresResult r = Gmres(Product(a), b, {}, {4, 8, 1e-14});
  EXPECT_FALSE(r.converged);
  EXPECT_EQ(r.iterations, 8);
  EXPECT_NEAR(r.relative_residual, (b - a * r.x).norm() / b.norm(), 1e-12);
  EXPECT_LT(r.relative_residual, 1.0);
}

TEST(Gmres, ExactStartAndZeroRightHandSide) {
  const int n = 10;
  const Eigen::MatrixXd a = RandomSystem(n, 0.2, 7);
  const Eigen::VectorXd x = RandomVector(n, 8);
  const GmresResult exact = Gmres(Product(a), a * x, x, {});
  EXPECT_TRUE(exact.converged);
  EXPECT_EQ(exact.iterations, 0);
  const GmresResult zero = Gmres(Product(a), Eigen::VectorXd::Zero(n), x, {});
  EXPECT_TRUE(zero.converged);
  EXPECT_EQ(zero.x, Eigen::VectorXd::Zero(n));
}

// A singular operator whose Krylov space becomes invariant: GMRES stops on the breakdown.
TEST(Gmres, HappyBreakdown) {
  Eigen::MatrixXd a = Eigen::MatrixXd::Identity(6, 6);
  a(0, 1) = 2.0;
  Eigen::VectorXd b = Eigen::VectorXd::Zero(6);
  b[0] = 1.0;
  const GmresResult r = Gmres(Product(a), b, {}, {});
  EXPECT_TRUE(r.converged);
  EXPECT_EQ(r.iterations, 1);
  EXPECT_LE((a * r.x - b).norm(), 1e-15);
}

}  // namespace
}  // namespace seqflow

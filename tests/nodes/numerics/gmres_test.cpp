// Restarted GMRES, and GMRES recycling its directions (recycling_gmres.h), on random nonsymmetric
// systems, against a dense LU solve.
#include "nodes/numerics/gmres.h"
#include "nodes/numerics/recycling_gmres.h"

#include <gtest/gtest.h>

#include <cmath>

#include "nodes/common/random.h"

namespace seqflow {
namespace gmres_test {

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

// I + scale · G with a few eigenvalues pulled next to 0: restarted GMRES stalls on them.
Eigen::MatrixXd NearlySingularSystem(int n, uint64_t seed) {
  Eigen::MatrixXd a = RandomSystem(n, 0.8 / std::sqrt(static_cast<double>(n)), seed);
  for (int i = 0; i < 4; ++i) a(i, i) = 1e-3 * (i + 1);
  return a;
}

// Recycling between the cycles of one solve (GCRO) reaches the tolerance, on the true residual,
// with fewer products than restarted GMRES(10); the kept directions satisfy A Z = W, Wᵀ W = I.
TEST(RecyclingGmres, SolvesToTheTrueResidualWithFewerProductsThanRestarts) {
  const int n = 120;
  const Eigen::MatrixXd a = NearlySingularSystem(n, 5);
  const Eigen::VectorXd b = RandomVector(n, 6);
  const GmresOptions options{10, 2000, 1e-10};
  const GmresResult plain = Gmres(Product(a), b, {}, options);
  RecyclingGmres recycling(Product(a), n, 200);
  const GmresResult r = recycling.Solve(b, {}, options);
  ASSERT_TRUE(r.converged);
  EXPECT_LE((b - a * r.x).norm(), 1e-10 * b.norm());
  const Eigen::VectorXd want = a.partialPivLu().solve(b);
  EXPECT_LE((r.x - want).norm(), 1e-6 * want.norm());
  EXPECT_LT(r.iterations, plain.iterations) << "plain converged: " << plain.converged;
  EXPECT_GT(recycling.kept(), 0);
}

// A second right-hand side starts from the first solve's directions: it needs far fewer products
// than the first, and its answer is as accurate; a start x0 is honoured.
TEST(RecyclingGmres, LaterRightHandSidesReuseTheDirections) {
  const int n = 120;
  const Eigen::MatrixXd a = NearlySingularSystem(n, 7);
  const GmresOptions options{30, 2000, 1e-8};
  RecyclingGmres recycling(Product(a), n, 200);
  const Eigen::VectorXd b1 = RandomVector(n, 8);
  const GmresResult first = recycling.Solve(b1, {}, options);
  ASSERT_TRUE(first.converged);
  const Eigen::VectorXd b2 = b1 + 0.1 * RandomVector(n, 9);
  const GmresResult second = recycling.Solve(b2, {}, options);
  ASSERT_TRUE(second.converged);
  EXPECT_LE((b2 - a * second.x).norm(), 1e-8 * b2.norm());
  EXPECT_LT(second.iterations, first.iterations / 2);
  const Eigen::VectorXd b3 = RandomVector(n, 10);
  const Eigen::VectorXd x0 = a.partialPivLu().solve(b3);
  const GmresResult started = recycling.Solve(b3, x0, options);
  EXPECT_TRUE(started.converged);
  EXPECT_EQ(started.iterations, 0);
  EXPECT_LE((started.x - x0).norm(), 1e-8 * x0.norm());
}

// The kept directions never exceed max_kept, and a solve with none to keep is plain GMRES.
TEST(RecyclingGmres, KeepsAtMostMaxKeptDirections) {
  const int n = 60;
  const Eigen::MatrixXd a = NearlySingularSystem(n, 11);
  const Eigen::VectorXd b = RandomVector(n, 12);
  const GmresOptions options{10, 2000, 1e-10};
  RecyclingGmres capped(Product(a), n, 15);
  const GmresResult r = capped.Solve(b, {}, options);
  EXPECT_TRUE(r.converged);
  EXPECT_LE(capped.kept(), 15);
  RecyclingGmres none(Product(a), n, 0);
  const GmresResult plain_like = none.Solve(b, {}, options);
  const GmresResult plain = Gmres(Product(a), b, {}, options);
  EXPECT_EQ(none.kept(), 0);
  EXPECT_EQ(plain_like.iterations, plain.iterations);
  EXPECT_LE((plain_like.x - plain.x).norm(), 1e-12 * plain.x.norm());
}

}  // namespace gmres_test
}  // namespace seqflow

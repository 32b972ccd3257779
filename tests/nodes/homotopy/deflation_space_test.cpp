// The carried deflation space (deflation_space.h) and the Krylov curve linearisation that carries
// it from solve to solve (curve_linearization.h): the pairs it keeps, and solves along a sequence
// of nearby bordered systems against dense solves, with fewer products than without it; a stale
// space that stalls GMRES still gives the solution.
#include "nodes/homotopy/deflation_space.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "nodes/common/random.h"
#include "nodes/homotopy/curve_linearization.h"
#include "nodes/homotopy/recycling_gmres.h"

namespace seqflow {
namespace {

Eigen::MatrixXd Uniform(int rows, int cols, uint64_t seed) {
  Rng rng = ShardRng(seed, 0);
  Eigen::MatrixXd m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = 2 * Uniform01(rng) - 1;
  return m;
}

// Like I − λJ near λ = 1 on the EM_λ curve: most eigenvalues in a small interval around 0, of
// both signs, some at 1, and a little non-normality — slow for plain GMRES.
Eigen::MatrixXd ClusteredSystem(int n, uint64_t seed) {
  const Eigen::MatrixXd q = Eigen::HouseholderQR<Eigen::MatrixXd>(Uniform(n, n, seed)).householderQ();
  Eigen::VectorXd d = Eigen::VectorXd::LinSpaced(n, -0.02, 0.1);
  d.tail(n / 10).setOnes();
  return q * d.asDiagonal() * q.transpose() + 1e-3 * Uniform(n, n, seed + 1);
}

TEST(DeflationSpace, KeepsOrthonormalPairsOfTheOperatorAndDeflatesThemToOne) {
  const int n = 60;
  const Eigen::MatrixXd a = ClusteredSystem(n, 1);
  auto apply = [&a](const Eigen::VectorXd& v) -> Eigen::VectorXd { return a * v; };
  DeflationSpace space(n, 25);
  for (uint64_t seed : {2, 3, 4}) {
    RecyclingGmres gmres(apply, n, 40);
    ASSERT_TRUE(gmres.Solve(Uniform(n, 1, seed), Eigen::VectorXd(), {10, 40, 1e-6}).x.allFinite());
    space.Add(gmres.z(), gmres.w());
    EXPECT_LE(space.kept(), 25);
    EXPECT_LE((space.w().transpose() * space.w() - Eigen::MatrixXd::Identity(space.kept(), space.kept())).norm(),
              1e-12);
    EXPECT_LE((a * space.z() - space.w()).norm(), 1e-10 * space.z().norm());  // one operator: exact
    // A P w_i = A z_i = w_i: the kept directions are eigenvectors of A P with eigenvalue 1.
    EXPECT_LE((a * space.ApplyColumns(space.w()) - space.w()).norm(), 1e-10 * space.z().norm());
  }
  EXPECT_EQ(space.kept(), 25);
  space.Clear();
  EXPECT_EQ(space.kept(), 0);
  const Eigen::VectorXd v = Uniform(n, 1, 5);
  EXPECT_EQ(space.Apply(v), v);
}

// Dρ_k = [A + k ε E, f]: the operators of successive Newton iterates and points.
Eigen::MatrixXd Drho(const Eigen::MatrixXd& a, int k, uint64_t seed) {
  const int n = static_cast<int>(a.rows());
  Eigen::MatrixXd d(n, n + 1);
  d.leftCols(n) = a + 1e-4 * k * Uniform(n, n, seed + 7);
  d.col(n) = Uniform(n, 1, seed + 8);
  return d;
}

TEST(DeflationSpace, CarriedSolvesAlongNearbySystemsMatchDenseSolvesWithFewerProducts) {
  const int n = 200;
  const Eigen::MatrixXd a = ClusteredSystem(n, 11);
  const Eigen::VectorXd orient = Eigen::VectorXd::Unit(n + 1, n) + 0.1 * Uniform(n + 1, 1, 12);
  const GmresOptions gmres{60, 4000, 1e-9};
  int products[2] = {0, 0};
  auto carried = std::make_shared<DeflationSpace>(n + 1, 100);
  for (int k = 0; k < 8; ++k) {
    const Eigen::MatrixXd d = Drho(a, k, 11);
    const auto dense = DenseCurveLinearization(d);
    const Eigen::VectorXd t = dense->Tangent(orient);
    const Eigen::VectorXd r = Uniform(n, 1, 20 + k);
    const Eigen::VectorXd step = dense->SolveAugmented(orient, r, 0.0);
    for (int with : {0, 1}) {
      auto apply = [&d, &products, with](const Eigen::VectorXd& v) -> Eigen::VectorXd {
        ++products[with];
        return d * v;
      };
      const auto krylov = KrylovCurveLinearization(apply, n, gmres, {}, 1e-6, 300, with ? carried : nullptr, 100);
      EXPECT_LE((krylov->SolveAugmented(orient, r, 0.0) - step).norm(), 1e-3 * step.norm()) << k;
      EXPECT_LE((krylov->Tangent(orient) - t).norm(), 1e-6) << k;
    }
  }
  EXPECT_GT(carried->kept(), 0);
  EXPECT_LT(products[1], 0.8 * products[0]) << products[1] << " vs " << products[0];
}

// A space from an unrelated operator (directions its near-singular values blew up) can stall
// GMRES on the new one; the solve then goes on without it and still converges.
TEST(DeflationSpace, AStaleSpaceThatStallsGmresStillGivesTheSolution) {
  const int n = 120;
  Eigen::MatrixXd old = Eigen::MatrixXd::Identity(n + 1, n + 1);
  old.diagonal().head(30).setConstant(1e-7);
  auto carried = std::make_shared<DeflationSpace>(n + 1, 60);
  const Eigen::MatrixXd w = Eigen::HouseholderQR<Eigen::MatrixXd>(Uniform(n + 1, 30, 30)).householderQ() *
                            Eigen::MatrixXd::Identity(n + 1, 30);
  carried->Add(old.partialPivLu().solve(w), w);  // old Z = W: huge
  const Eigen::MatrixXd d = Drho(ClusteredSystem(n, 31), 0, 31);
  const Eigen::VectorXd orient = Eigen::VectorXd::Unit(n + 1, n);
  const Eigen::VectorXd r = Uniform(n, 1, 32);
  const Eigen::VectorXd want = DenseCurveLinearization(d)->SolveAugmented(orient, r, 0.0);
  const auto krylov = KrylovCurveLinearization([&d](const Eigen::VectorXd& v) -> Eigen::VectorXd { return d * v; }, n,
                                               GmresOptions{60, 4000, 1e-10}, {}, 0, 100, carried, 60);
  const Eigen::VectorXd got = krylov->SolveAugmented(orient, r, 0.0);
  ASSERT_TRUE(got.allFinite());
  EXPECT_LE((got - want).norm(), 1e-6 * want.norm());
  // The stale pairs are gone: what is kept are the new solve's own, exact for its operator.
  Eigen::MatrixXd bordered(n + 1, n + 1);
  bordered << d, orient.transpose();
  ASSERT_GT(carried->kept(), 0);
  EXPECT_LE((bordered * carried->z() - carried->w()).norm(), 1e-8 * carried->z().norm());
}

}  // namespace
}  // namespace seqflow

// FindSingularPoints on hand-made traces: a regular curve, a fold, a branch point passed, a stall
// at a branch point, a stall re-entered past, and a stall that is not at a singular point.
#include "nodes/homotopy/singular_points.h"

#include <gtest/gtest.h>

namespace seqflow {
namespace singular_points_test {

PathPoint At(double lambda, double dlambda_ds, int det_sign, double min_eig, bool reentry = false) {
  PathPoint p;
  p.lambda = lambda;
  p.dlambda_ds = dlambda_ds;
  p.det_sign = det_sign;
  p.min_eig = min_eig;
  p.reentry = reentry;
  return p;
}

TEST(SingularPointsTest, ARegularCurveHasNone) {
  EXPECT_TRUE(FindSingularPoints({At(0, 1, 1, -1), At(0.5, 0.9, 1, -0.3), At(1, 0.8, 1, -0.01)}, false).empty());
}

TEST(SingularPointsTest, DetFlipWithATurnIsAFoldWithoutOneABranchPoint) {
  // Up to a fold at ~0.6, back down past a branch point at ~0.45.
  const std::vector<SingularPoint> found = FindSingularPoints(
      {At(0.5, 0.8, 1, -0.1), At(0.6, 0.1, 1, -0.01), At(0.55, -0.5, -1, 0.05), At(0.4, -0.9, 1, -0.02)}, false);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].kind, SingularPoint::Kind::kFold);
  EXPECT_DOUBLE_EQ(found[0].lambda, 0.575);
  EXPECT_EQ(found[0].before, 1u);
  EXPECT_FALSE(found[0].stalled);
  EXPECT_EQ(found[1].kind, SingularPoint::Kind::kBranchPoint);
  EXPECT_DOUBLE_EQ(found[1].lambda, 0.475);
}

TEST(SingularPointsTest, AStallWhereIMinusLambdaJIsSingularIsAtTheStalledPoint) {
  const std::vector<PathPoint> trace = {At(0, 0.88, 1, -1), At(0.5342, 0.88, 1, -2.7e-8)};
  const std::vector<SingularPoint> found = FindSingularPoints(trace, true);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, SingularPoint::Kind::kBranchPoint) << "dλ/ds = 0.88: the curve crosses λ there";
  EXPECT_DOUBLE_EQ(found[0].lambda, 0.5342);
  EXPECT_EQ(found[0].before, 1u);
  EXPECT_TRUE(found[0].stalled);
  // A trace that ran out of steps did not stall; a stall far from singular is not a singular point.
  EXPECT_TRUE(FindSingularPoints(trace, false).empty());
  EXPECT_TRUE(FindSingularPoints({At(0, 0.88, 1, -1), At(0.3, 0.88, 1, -0.2)}, true).empty());
  // Nearly tangent to λ = const there: a fold.
  EXPECT_EQ(FindSingularPoints({At(0, 0.88, 1, -1), At(0.6, 1e-5, 1, 1e-9)}, true)[0].kind,
            SingularPoint::Kind::kFold);
}

TEST(SingularPointsTest, AReentryPastASingularPointCountsItOnceAtTheStall) {
  const std::vector<SingularPoint> found = FindSingularPoints(
      {At(0.5, 0.88, 1, -0.1), At(0.5342, 0.88, 1, -2.7e-8), At(0.5343, 0.88, -1, 1.6e-4, true), At(0.6, 0.88, -1, 0.1)},
      false);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_DOUBLE_EQ(found[0].lambda, 0.5342);
  EXPECT_TRUE(found[0].stalled);
  EXPECT_EQ(found[0].before, 1u);
}

}  // namespace singular_points_test
}  // namespace seqflow

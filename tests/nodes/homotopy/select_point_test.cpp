// λ-selection criteria on hand-made paths, and the HomotopyPath artifact's exact round trip.
#include "nodes/homotopy/select_point.h"

#include <gtest/gtest.h>

#include "nodes/semi_supervised/homotopy_path.h"
#include "tests/nodes/homotopy/homotopy_testutil.h"

namespace seqflow {
namespace select_point_test {

HomotopyPoint Point(double lambda, double dlambda, double mu_max, int det_sign, double entropy) {
  HomotopyPoint p;
  p.s = p.lambda = lambda;
  p.dlambda_ds = dlambda;
  p.mu_max = mu_max;
  p.min_eig = lambda * mu_max - 1;
  p.det_sign = det_sign;
  p.entropy = entropy;
  return p;
}

// λ rises to 0.3, folds back (dλ/ds < 0 at 0.28, det sign flipped), then rises again.
std::vector<HomotopyPoint> FoldingPath() {
  return {Point(0.0, 1, 5, 1, 0.40), Point(0.1, 1, 5, 1, 0.45), Point(0.2, 1, 4.8, 1, 0.50),
          Point(0.3, 0.1, 3.4, 1, 0.42), Point(0.28, -1, 3.9, -1, 0.41), Point(0.5, 1, 1, 1, 0.30)};
}

TEST(SelectPoint, MonotoneStopsBeforeTheFirstFold) {
  EXPECT_EQ(SelectPoint(FoldingPath(), Criterion::kMonotone, 0), 3u);
}

TEST(SelectPoint, MonotoneTakesTheEndOfAPathThatNeverTurns) {
  std::vector<HomotopyPoint> path = {Point(0, 1, 1, 1, 0), Point(0.5, 1, 1, 1, 0), Point(1, 1, 0.5, 1, 0)};
  EXPECT_EQ(SelectPoint(path, Criterion::kMonotone, 0), 2u);
}

TEST(SelectPoint, MinEigIsTheMostSingularPointBeforeTheFold) {
  // |λ μ_max − 1|: 0.5, 0.04, 0.02 (the minimum, at λ = 0.3), then past the fold.
  EXPECT_EQ(SelectPoint(FoldingPath(), Criterion::kMinEig, 0), 3u);
}

// The point nearest the first zero of det(I − λJ): of the bracket (3, 4) around the first flip,
// point 3 (|min_eig| 0.02 against 0.092); with the point past the fold closer, that one.
TEST(SelectPoint, FirstSingularityIsTheBracketPointNearestTheFold) {
  EXPECT_EQ(ParseCriterion("first_singularity").value(), Criterion::kFirstSingularity);
  std::vector<HomotopyPoint> path = FoldingPath();
  EXPECT_EQ(SelectPoint(path, Criterion::kFirstSingularity, 0), 3u);
  path[4] = Point(0.299, -1, 3.35, -1, 0.41);  // 0.299 * 3.35 − 1 = 0.00165
  EXPECT_EQ(SelectPoint(path, Criterion::kFirstSingularity, 0), 4u);
  std::vector<HomotopyPoint> straight = {Point(0, 1, 1, 1, 0), Point(0.5, 1, 1, 1, 0), Point(1, 1, 0.5, 1, 0)};
  EXPECT_EQ(SelectPoint(straight, Criterion::kFirstSingularity, 0), 2u);
}

TEST(SelectPoint, MaxSequenceEntropyReadsItsMetric) {
  std::vector<HomotopyPoint> path = FoldingPath();
  const double h[] = {0.2, 0.25, 0.22, 0.3, 0.1, 0.05};
  for (size_t k = 0; k < path.size(); ++k) path[k].metrics["sequence_entropy"] = h[k];
  EXPECT_EQ(*ParseCriterion("max_sequence_entropy"), Criterion::kMaxSequenceEntropy);
  EXPECT_EQ(SelectPoint(path, Criterion::kMaxSequenceEntropy, 0), 3u);
  EXPECT_EQ(SelectPoint(path, Criterion::kMaxEntropy, 0), 2u);  // the token marginals peak elsewhere
  path[3].metrics.erase("sequence_entropy");
  EXPECT_EQ(SelectPoint(path, Criterion::kMaxSequenceEntropy, 0), 1u);
}

TEST(SelectPoint, MaxEntropyFixedAndBestScore) {
  EXPECT_EQ(SelectPoint(FoldingPath(), Criterion::kMaxEntropy, 0), 2u);
  EXPECT_EQ(SelectPoint(FoldingPath(), Criterion::kFixed, 0.12), 1u);
  EXPECT_EQ(SelectPoint(FoldingPath(), Criterion::kFixed, 0.29), 4u);
  EXPECT_EQ(SelectPoint(FoldingPath(), Criterion::kBestScore, 0, {1, 3, 3, 2, 0, 1}), 1u);  // ties: earlier
}

// A probability-one path (Ji et al.): it returns near λ = 0 at point 3, where P_F starts;
// max_entropy and fixed look at P_F only, last_lambda_zero is P_F's first point. An unmarked path
// is all P_F (point 0).
TEST(SelectPoint, FinalSegmentCriteria) {
  std::vector<HomotopyPoint> path = {Point(0.0, 1, 0, 1, 0.2), Point(0.3, 1, 0, 1, 0.9), Point(0.1, -1, 0, 1, 0.5),
                                     Point(0.01, 1, 0, 1, 0.3), Point(0.5, 1, 0, 1, 0.6), Point(1.0, 1, 0, 1, 0.1)};
  EXPECT_EQ(SelectPoint(path, Criterion::kLastLambdaZero, 0), 0u);
  EXPECT_EQ(SelectPoint(path, Criterion::kMaxEntropy, 0), 1u);
  for (size_t k = 0; k < path.size(); ++k) path[k].metrics["final_segment"] = k >= 3 ? 1.0 : 0.0;
  EXPECT_EQ(FinalSegmentStart(path), 3u);
  EXPECT_EQ(SelectPoint(path, Criterion::kLastLambdaZero, 0), 3u);
  EXPECT_EQ(SelectPoint(path, Criterion::kMaxEntropy, 0), 4u);
  EXPECT_EQ(SelectPoint(path, Criterion::kFixed, 0.28), 4u);  // not point 1 (λ 0.3) before P_F
  EXPECT_EQ(ValueOrThrow(ParseCriterion("last_lambda_zero")), Criterion::kLastLambdaZero);
}

TEST(SelectPoint, ParsesTheCriterionNames) {
  EXPECT_EQ(*ParseCriterion("min_eig"), Criterion::kMinEig);
  EXPECT_FALSE(ParseCriterion("minEig").ok());
}

TEST(HomotopyPath, RoundTripIsExactAndRebuildsModels) {
  auto vocab = std::make_shared<Vocab>(std::vector<std::string>{"a", "b", "c"}, UnknownScheme::kSingle, false);
  auto reference = std::make_shared<HmmModel>();
  reference->label_names = {"x", "y"};
  reference->encoding = TagEncoding::kRuns;
  reference->vocab = vocab;
  reference->params = testutil::RandomHmm(2, vocab->size(), 3);
  HomotopyPath path;
  path.method = "em_lambda_path";
  path.reference = reference;
  path.free = FreeBlocks{false, false, true};
  path.num_labeled = 3;
  path.num_unlabeled = 7;
  path.stop = "reached lambda_end";
  for (double lambda : {0.0, 0.25}) {
    HomotopyPoint p = Point(lambda, 0.5, 2, 1, 0.1 + lambda);
    p.theta_tilde = path.Layout().Gather(testutil::RandomHmm(2, vocab->size(), 10 + static_cast<int>(4 * lambda)));
    p.metrics["test.f1"] = 0.5 + lambda;
    path.points.push_back(p);
  }
  ByteWriter w;
  path.Save(w);
  ByteReader r(w.bytes());
  auto loaded = HomotopyPath::Load(r);
  ByteWriter again;
  loaded->Save(again);
  EXPECT_EQ(w.bytes(), again.bytes());
  EXPECT_TRUE(loaded->ModelAt(1)->params.emission.isApprox(path.ModelAt(1)->params.emission, 0));
  EXPECT_EQ(loaded->ModelAt(1)->params.transition, reference->params.transition);  // frozen
  EXPECT_NE(path.Csv().find("test.f1"), std::string::npos);
}

}  // namespace select_point_test
}  // namespace seqflow

// The EM_λ homotopy's singular-point case through the real binaries (docs/validity.md):
// seqflow-datagen writes labeled sentences that say nothing about which state is which (each twice,
// the states swapped) and unlabeled ones from a two-state HMM, so the curve of EM_λ fixed points
// with equal emission rows meets a branch point where I − λ∇EM_1 turns singular. The tracker must
// report a branch point (not a fold) where λ μ_max = 1, stall there without re-entries, and cross
// it to λ = 1 with them. Measured (seed 1): the branch point at λ = 0.534210, λ μ_max − 1 = −2.7e-8
// at the stall; with re-entries a second one on the way to λ = 1. Under a second.
#include <string>

#include <gtest/gtest.h>

#include "tests/e2e/validity_case.h"

namespace seqflow::testutil {
namespace validity_em_lambda_branch_test {

TEST(ValidityEmLambda, TheTrackerReportsTheBranchPointItStallsAt) {
  const std::string dir = GenerateValidityData(
      "em-lambda-branch", "--validity em-lambda-branch --seed 1 --labeled 10 --unlabeled 200 --test 300");
  const nlohmann::json s = RunOnValidityData(PipelinePath("validity/em_lambda_branch.yaml"), dir);
  EXPECT_EQ(MetricOf(s, "path", "reached_end"), 0);
  EXPECT_EQ(MetricOf(s, "path", "singular_points"), 1);
  EXPECT_EQ(MetricOf(s, "path", "folds"), 0);
  const double branch = MetricOf(s, "path", "singular.lambda");
  EXPECT_NEAR(branch, 0.53421, 1e-4);
  EXPECT_EQ(MetricOf(s, "path", "lambda.final"), branch) << "the trace stops at the branch point";
  EXPECT_LE(MetricOf(s, "path", "residual.max"), 1e-12);

  EXPECT_EQ(MetricOf(s, "crossed", "reached_end"), 1);
  EXPECT_GE(MetricOf(s, "crossed", "reentries"), 1);
  EXPECT_EQ(MetricOf(s, "crossed", "folds"), 0);
  EXPECT_EQ(MetricOf(s, "crossed", "singular.lambda"), branch);
}

}  // namespace validity_em_lambda_branch_test
}  // namespace seqflow::testutil

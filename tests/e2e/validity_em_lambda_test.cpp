// The EM_λ homotopy validity case through the real binaries (docs/validity.md): seqflow-datagen
// writes a small HMM's sentences, pipelines/validity/em_lambda.yaml traces the EM_λ curve from the
// supervised estimate to λ = 1. Where the curve is regular the tracker must reach λ = 1 with every
// point on it (‖F‖∞ tiny), without re-entries, and end on a fixed point of EM_1. Measured (seed 1):
// 27 points, ‖F‖∞ ≤ 1.4e-16, EM_1 from the end moves the objective by 4e-15; EM_1 from the supervised
// start converges to another, higher fixed point (L = -16.6128 against the end's -16.6168; test
// accuracy .5395 against .5153). About 2 s.
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "tests/e2e/validity_case.h"

namespace seqflow::testutil {
namespace validity_em_lambda_test {

TEST(ValidityEmLambda, TheTrackerFollowsARegularCurveToLambdaOne) {
  const std::string dir =
      GenerateValidityData("em-lambda", "--validity em-lambda --seed 1 --labeled 20 --unlabeled 200 --test 500");
  const nlohmann::json s = RunOnValidityData(PipelinePath("validity/em_lambda.yaml"), dir);
  EXPECT_EQ(MetricOf(s, "path", "reached_end"), 1);
  EXPECT_EQ(MetricOf(s, "path", "lambda.final"), 1.0);
  EXPECT_EQ(MetricOf(s, "path", "reentries"), 0);
  EXPECT_EQ(MetricOf(s, "path", "singular_points"), 0) << "a regular curve: I − λ∇EM_1 never singular";
  EXPECT_LE(MetricOf(s, "path", "residual.max"), 1e-8);
  EXPECT_GE(MetricOf(s, "path", "points"), 10);
  const double end_first = MetricOf(s, "at_end", "objective.first"), end_final = MetricOf(s, "at_end", "objective.final");
  EXPECT_LE(std::abs(end_final - end_first), 1e-9 * std::abs(end_first));
  // EM from the supervised start reaches a fixed point at least as good as the end's.
  EXPECT_GE(MetricOf(s, "em1", "objective.final"), end_first - 1e-9);
  for (const std::string criterion : {"max_entropy", "max_sequence_entropy", "min_eig", "monotone", "mle"}) {
    EXPECT_GE(MetricOf(s, criterion, "lambda"), 0.0) << criterion;
    EXPECT_LE(MetricOf(s, criterion, "lambda"), 1.0) << criterion;
  }
}

}  // namespace validity_em_lambda_test
}  // namespace seqflow::testutil

// Ji, Watson & Carin's semi-supervised HMM classifier through the real binaries: seqflow-datagen
// writes the mismatched case, and pipelines/ji_mismatched_e2e.yaml (ji_mismatched.yaml with
// 3 repeats) runs reader, split, hmm.classifier, homotopy.probability_one, classifier.select and
// eval.classes. Thresholds from the measured run (2026-11-24, seeds 1-3): accuracy on the 700
// unlabeled sequences supervised .7214/.8414/.8586, λ = U/(L+U) on P_F .9129/.9157/.9100 (p =
// 1e-4 against the start each), 520/859/655 map evaluations (at HMAX 0.1, the default then); every path reaches λ = 1; the
// selected λ of mle is 700/720. About 12 s on 2 cores.
#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/e2e/cli_runner.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::testutil {
namespace ji_homotopy_test {

TEST(JiHomotopy, MismatchedDrawsImproveOnTheSupervisedStart) {
  const std::string dir = MakeTempDir("seqflow-ji");
  const std::string datagen = std::string(SEQFLOW_DATAGEN) + " --out " + dir + "/data --ji-case mismatched --seed 1";
  ASSERT_EQ(std::system(datagen.c_str()), 0);
  CliResult r = RunSeqflow({"run", PipelinePath("ji_mismatched_e2e.yaml"), "--set", "ji_data=" + dir + "/data",
                            "--cache", dir + "/cache", "--out", dir + "/out", "-j", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json summary = ReadSummary(dir + "/out");
  double supervised = 0, mle = 0;
  for (size_t run = 0; run < 3; ++run) {
    EXPECT_EQ(MetricOf(summary, "pool", "sequences", run), 720);
    EXPECT_EQ(MetricOf(summary, "unlabeled", "sequences", run), 700);
    EXPECT_NEAR(MetricOf(summary, "mle", "lambda", run), 700.0 / 720.0, 1e-12);
    EXPECT_EQ(MetricOf(summary, "last_zero", "lambda", run), MetricOf(summary, "path", "final_segment_lambda", run));
    EXPECT_LE(MetricOf(summary, "path", "evaluations", run), 3000);
    EXPECT_GE(MetricOf(summary, "mle_score", "accuracy", run), 0.88) << run;
    EXPECT_GE(MetricOf(summary, "supervised_score", "accuracy", run), 0.6) << run;
    supervised += MetricOf(summary, "supervised_score", "accuracy", run) / 3;
    mle += MetricOf(summary, "mle_score", "accuracy", run) / 3;
    EXPECT_LE(MetricOf(summary, "mle_score", "p_value", run), 0.05) << run;
  }
  EXPECT_GE(mle - supervised, 0.05);
}

}  // namespace ji_homotopy_test
}  // namespace seqflow::testutil

namespace seqflow::testutil {
namespace ji_homotopy_test {

// Draw 45 of Table I at looser tracking tolerances (arc 1e-5, HMAX 1): near λ = 0.93 its curve turns
// so sharply that the tangent kept from the corrector's last iterate (one Newton step off the
// curve) disagrees by 62° with the tangent at the point itself, so every step, however short,
// failed the angle test and the path stopped below HMIN. The tracker now re-takes the tangent at
// the point once before shrinking the step; measured 2026-11-24: λ = 1 reached, accuracy of
// λ = U/(L+U) .8929 (supervised .7700).
TEST(JiHomotopy, ASharpTurnNearLambdaPoint93IsFollowedAtLooseTolerances) {
  const std::string dir = MakeTempDir("seqflow-ji-turn");
  const std::string datagen = std::string(SEQFLOW_DATAGEN) + " --out " + dir + "/data --ji-case mismatched --seed 1";
  ASSERT_EQ(std::system(datagen.c_str()), 0);
  std::vector<std::string> args = {"run", PipelinePath("ji_mismatched_draw.yaml"), "--set", "ji_data=" + dir + "/data"};
  for (const char* set : {"labeled.seed=45", "unlabeled.seed=45", "supervised.seed=45", "path.max_step=1",
                          "path.arc_tol=1e-5", "path.arc_abs_tol=1e-5"}) {
    args.push_back("--set");
    args.push_back(set);
  }
  args.insert(args.end(), {"--cache", dir + "/cache", "--out", dir + "/out"});
  CliResult r = RunSeqflow(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json summary = ReadSummary(dir + "/out");
  EXPECT_NEAR(MetricOf(summary, "supervised_score", "accuracy", 0), 0.7700, 1e-4);
  EXPECT_NEAR(MetricOf(summary, "mle_score", "accuracy", 0), 0.8929, 1e-3);
}

}  // namespace ji_homotopy_test
}  // namespace seqflow::testutil

namespace seqflow::testutil {
namespace ji_homotopy_test {

// A matched draw (20 labeled per class, seed 1) with HMAX 1: its path reaches λ = 1 in long steps,
// and the pair of P_F's points around λ = U/(L+U) = 0.96 lay so far apart that Newton at fixed λ
// from their chord did not converge ("Newton at fixed λ did not converge": the node failed);
// PathPointAtLambda now falls back to CorrectAtLambdaBetween (normal_flow.h). Measured 2026-11-25:
// 229 evaluations, accuracy supervised .7281, λ = U/(L+U) .7646 (p = .009).
TEST(JiHomotopy, AMatchedDrawTrackedInLongStepsFindsItsUOverLPlusUPoint) {
  const std::string dir = MakeTempDir("seqflow-ji-long");
  const std::string datagen = std::string(SEQFLOW_DATAGEN) + " --out " + dir + "/data --ji-case matched --seed 1";
  ASSERT_EQ(std::system(datagen.c_str()), 0);
  std::vector<std::string> args = {"run", PipelinePath("ji_matched_draw.yaml"), "--set", "ji_data=" + dir + "/data"};
  for (const char* set : {"labeled.per_class=20", "unlabeled.per_class=20", "labeled.seed=1", "unlabeled.seed=1",
                          "supervised.seed=1", "mle_score.seed=1", "path.max_step=1"}) {
    args.push_back("--set");
    args.push_back(set);
  }
  args.insert(args.end(), {"--cache", dir + "/cache", "--out", dir + "/out"});
  CliResult r = RunSeqflow(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json summary = ReadSummary(dir + "/out");
  EXPECT_EQ(MetricOf(summary, "path", "evaluations", 0), 229);
  EXPECT_NEAR(MetricOf(summary, "mle", "lambda", 0), 0.96, 1e-12);
  EXPECT_NEAR(MetricOf(summary, "supervised_score", "accuracy", 0), 0.7281, 1e-4);
  EXPECT_NEAR(MetricOf(summary, "mle_score", "accuracy", 0), 0.7646, 1e-4);
}

}  // namespace ji_homotopy_test
}  // namespace seqflow::testutil

// Ji, Watson & Carin's semi-supervised HMM classifier through the real binaries: seqflow-datagen
// writes the mismatched case, and pipelines/ji_mismatched_e2e.yaml (ji_mismatched.yaml with
// 3 repeats) runs reader, split, hmm.classifier, homotopy.probability_one, classifier.select and
// eval.classes. Thresholds from the measured run (2026-11-24, seeds 1-3): accuracy on the 700
// unlabeled sequences supervised .7214/.8414/.8586, λ = U/(L+U) on P_F .9129/.9157/.9100 (p =
// 1e-4 against the start each), 520/859/655 map evaluations; every path reaches λ = 1; the
// selected λ of mle is 700/720. About 12 s on 2 cores.
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "tests/e2e/cli_runner.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::testutil {
namespace {

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

}  // namespace
}  // namespace seqflow::testutil

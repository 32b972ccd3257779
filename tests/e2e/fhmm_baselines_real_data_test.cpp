// The feature-HMM baselines of Marinho et al. (2016) on the real data: fhmm.em (EM from the
// supervised FHMM, the dev-best iteration) and hmm.self_train with `emissions: loglinear`.
// Measured 2026-11-24 (12 universal tags):
//   pipelines/twitter_anchors.yaml, Daily547, 150 / 1,000 labeled tweets: supervised FHMM
//   .7949 / .8435, EM .8023 (dev-best iteration 1) / .8435 (iteration 0: no iteration beat the
//   start on dev, the paper's footnote 5), self-training .8049 / .8469.
//   pipelines/malagasy_anchors.yaml, test.txt: supervised FHMM .8791, EM (1 iteration) .8776,
//   self-training .8859 (paper: 90.5, 90.5, 88.7).
// Thresholds sit about half a point under those. Fails, never skips, without ../shared/data.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "tests/e2e/cli_runner.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::testutil {
namespace {

size_t RunWithLabeled(const nlohmann::json& summary, const std::string& count) {
  const auto& runs = summary.at("runs");
  for (size_t i = 0; i < runs.size(); ++i)
    if (runs[i].at("ablation").at("labeled.count") == count) return i;
  ADD_FAILURE() << "no run with labeled.count = " << count;
  return 0;
}

TEST(RealData, TwitterFhmmEmAndSelfTraining) {
  const std::string dir = MakeTempDir("seqflow-twitter-fhmm");
  CliResult r = RunSeqflow({"run", PipelinePath("twitter_anchors.yaml"), "--ablation", "size", "-j", "2", "--cache",
                            dir + "/cache", "--out", dir + "/out"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json s = ReadSummary(dir + "/out");
  const size_t few = RunWithLabeled(s, "150"), all = RunWithLabeled(s, "1000");

  EXPECT_GE(MetricOf(s, "fhmm_em_score", "accuracy", few), 0.797);
  EXPECT_GE(MetricOf(s, "fhmm_self_train_score", "accuracy", few), 0.800);
  EXPECT_GE(MetricOf(s, "fhmm_em_score", "accuracy", all), 0.839);
  EXPECT_GE(MetricOf(s, "fhmm_self_train_score", "accuracy", all), 0.842);
  // With 150 labels an EM iteration beats the start on dev; with 1,000 none does, and the start
  // (the supervised FHMM) is returned.
  EXPECT_GE(MetricOf(s, "fhmm_em", "best_iteration", few), 1);
  EXPECT_GT(MetricOf(s, "fhmm_em", "dev.accuracy.best", few), MetricOf(s, "fhmm_em", "dev.accuracy.start", few));
  EXPECT_EQ(MetricOf(s, "fhmm_em", "best_iteration", all), 0);
  EXPECT_EQ(MetricOf(s, "fhmm_em_score", "accuracy", all), MetricOf(s, "fhmm_supervised_score", "accuracy", all));
  EXPECT_EQ(MetricOf(s, "fhmm_em", "iterations", few), 5);
  // The log-linear refit generalises from the self-labeled text better than counting does.
  EXPECT_GT(MetricOf(s, "fhmm_self_train_score", "accuracy", few), MetricOf(s, "self_train_score", "accuracy", few));
}

TEST(RealData, MalagasyFhmmEmAndSelfTraining) {
  const std::string dir = MakeTempDir("seqflow-malagasy-fhmm");
  CliResult r = RunSeqflow({"run", PipelinePath("malagasy_anchors.yaml"), "--ablation", "em", "-j", "2", "--cache",
                            dir + "/cache", "--out", dir + "/out"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json s = ReadSummary(dir + "/out");
  EXPECT_GE(MetricOf(s, "fhmm_em_score", "accuracy", 0), 0.872);
  EXPECT_GE(MetricOf(s, "fhmm_self_train_score", "accuracy", 0), 0.881);
  EXPECT_EQ(MetricOf(s, "fhmm_em", "iterations", 0), 1);
  EXPECT_GT(MetricOf(s, "fhmm_em", "objective.final", 0), MetricOf(s, "fhmm_em", "objective.first", 0));
  EXPECT_GT(MetricOf(s, "fhmm_self_train_score", "accuracy", 0), MetricOf(s, "self_train_score", "accuracy", 0));
}

// pipelines/twitter_anchors_curve.yaml with two seeds: every (N, seed) run draws its own labeled
// set (the seeds' supervised accuracies differ at every N), and anchors λ = 1 beat the supervised
// HMM at N = 50 for each seed (measured with 5 seeds: +4.8 to +5.9 points; one-hot contexts gave
// +2.8 to +4.6).
TEST(RealData, TwitterCurveSeededRepeats) {
  const std::string dir = MakeTempDir("seqflow-twitter-curve");
  CliResult r = RunSeqflow({"run", PipelinePath("twitter_anchors_curve.yaml"), "--set", "repeats=2", "-j", "2",
                            "--cache", dir + "/cache", "--out", dir + "/out"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json s = ReadSummary(dir + "/out");
  const auto& runs = s.at("runs");
  ASSERT_EQ(runs.size(), 12u);
  std::map<std::string, std::map<std::string, size_t>> by_size;  // N -> seed -> run
  for (size_t i = 0; i < runs.size(); ++i)
    by_size[runs[i].at("ablation").at("labeled.count").get<std::string>()]
           [runs[i].at("ablation").at("labeled.seed").get<std::string>()] = i;
  ASSERT_EQ(by_size.size(), 6u);
  for (const auto& [n, seeds] : by_size) {
    ASSERT_EQ(seeds.size(), 2u) << n;
    EXPECT_NE(MetricOf(s, "supervised_score", "accuracy", seeds.at("1")),
              MetricOf(s, "supervised_score", "accuracy", seeds.at("2")))
        << n;
  }
  for (const auto& [seed, run] : by_size.at("50"))
    EXPECT_GT(MetricOf(s, "anchor1_score", "accuracy", run), MetricOf(s, "supervised_score", "accuracy", run) + 0.04)
        << seed;
}

}  // namespace
}  // namespace seqflow::testutil

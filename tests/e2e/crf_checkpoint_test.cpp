// crf.train checkpoints and continuations on the real binary and data (DESIGN §11), on
// pipelines/conll2000_crf_small.yaml (the templates of conll2000_crf.yaml on 1500 sentences):
//   - a run SIGKILLed mid-training resumes from its checkpoint and ends with every cache entry,
//     bit for bit, as a run never interrupted (timing fields aside); the checkpoint is then gone;
//   - with the result of max_iterations 20 cached, `seqflow plan` at 40 says the node continues
//     from iteration 20, and the run continues from it to the entries of the uninterrupted 40.
// Fails, never skips, without ../shared/data.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <thread>

#include "tests/e2e/cli_runner.h"
#include "tests/e2e/timeless_entry.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::testutil {
namespace {

namespace fs = std::filesystem;

class CrfCheckpointTest : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(MakeTempDir("seqflow-crf-checkpoint"));
    CliResult uninterrupted = RunSeqflow(Args("uninterrupted", 40));
    ASSERT_EQ(uninterrupted.exit_code, 0) << uninterrupted.err;
    EXPECT_EQ(uninterrupted.err.find("resuming"), std::string::npos);
    EXPECT_EQ(uninterrupted.err.find("continues"), std::string::npos);
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete dir_;
  }
  static std::vector<std::string> Args(const std::string& cache, int iterations, const std::string& command = "run") {
    std::vector<std::string> args{command, PipelinePath("conll2000_crf_small.yaml"), "--set",
                                  "crf.max_iterations=" + std::to_string(iterations), "--cache", (*dir_ / cache).string()};
    if (command == "run") args.insert(args.end(), {"-j", "2", "--checkpoint-seconds", "0.3"});
    return args;
  }
  static fs::path* dir_;
};

fs::path* CrfCheckpointTest::dir_ = nullptr;

TEST_F(CrfCheckpointTest, AKilledTrainingResumesFromItsCheckpointToTheSameBits) {
  const int killed = StartSeqflow(Args("resumed", 40));
  ASSERT_GT(killed, 0);
  for (int wait = 0; wait < 600 && CheckpointCount((*dir_ / "resumed").string()) == 0; ++wait)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::this_thread::sleep_for(std::chrono::milliseconds(700));  // a few checkpoints later
  ASSERT_EQ(::kill(killed, SIGKILL), 0);
  EXPECT_EQ(WaitSeqflow(killed), -SIGKILL);
  ASSERT_EQ(CheckpointCount((*dir_ / "resumed").string()), 1) << "the killed run's checkpoint";

  CliResult resumed = RunSeqflow(Args("resumed", 40));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("node 'crf': resuming from its checkpoint"), std::string::npos) << resumed.err;
  EXPECT_EQ(CheckpointCount((*dir_ / "resumed").string()), 0) << "removed once the entry is published";
  EXPECT_EQ(ValueOrThrow(TimelessEntries((*dir_ / "resumed").string())), ValueOrThrow(TimelessEntries((*dir_ / "uninterrupted").string())));
}

TEST_F(CrfCheckpointTest, ARaisedMaxIterationsContinuesFromTheCachedResult) {
  CliResult first = RunSeqflow(Args("continued", 20));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  CliResult plan = RunSeqflow(Args("continued", 40, "plan"));
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_NE(plan.out.find("continues from iteration 20"), std::string::npos) << plan.out;

  CliResult continued = RunSeqflow(Args("continued", 40));
  ASSERT_EQ(continued.exit_code, 0) << continued.err;
  EXPECT_NE(continued.err.find("node 'crf': continues from iteration 20"), std::string::npos) << continued.err;
  // The cache holds the entries of 20 iterations besides those of the uninterrupted 40.
  const std::map<std::string, std::string> all = ValueOrThrow(TimelessEntries((*dir_ / "continued").string()));
  for (const auto& [name, entry] : ValueOrThrow(TimelessEntries((*dir_ / "uninterrupted").string()))) {
    auto found = all.find(name);
    ASSERT_NE(found, all.end()) << name << " is missing from the continued run's cache";
    EXPECT_TRUE(found->second == entry) << name << " differs from the uninterrupted run's";
  }
  // Lowering it again reuses the cached 20 and continues nothing.
  CliResult lowered = RunSeqflow(Args("continued", 20, "plan"));
  EXPECT_EQ(lowered.out.find("continues"), std::string::npos) << lowered.out;
}

}  // namespace
}  // namespace seqflow::testutil

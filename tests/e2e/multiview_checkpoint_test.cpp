// multiview.perceptron's checkpoints on the real binary and data (DESIGN §11), on
// pipelines/conll2002_perceptron_full.yaml (CoNLL-2002 Spanish, both feature sets, a few epochs):
//   - with the result of 2 epochs cached, `seqflow plan` at 4 says the node continues from
//     iteration 2, and the run continues from it to the entries of an uninterrupted 4;
//   - a run SIGKILLed after its first checkpoint resumes from it and ends with every entry, bit for
//     bit, as the uninterrupted run (timing fields aside); the checkpoints are then gone.
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

class MultiviewCheckpointTest : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(MakeTempDir("seqflow-multiview-checkpoint"));
    CliResult uninterrupted = RunSeqflow(Args("uninterrupted", 4));
    ASSERT_EQ(uninterrupted.exit_code, 0) << uninterrupted.err;
    EXPECT_EQ(uninterrupted.err.find("resuming"), std::string::npos);
    EXPECT_EQ(uninterrupted.err.find("continues"), std::string::npos);
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete dir_;
  }
  static std::vector<std::string> Args(const std::string& cache, int epochs, const std::string& command = "run") {
    std::vector<std::string> args{command, PipelinePath("conll2002_perceptron_full.yaml"), "--set",
                                  "epochs=" + std::to_string(epochs), "--cache", (*dir_ / cache).string()};
    if (command == "run") args.insert(args.end(), {"-j", "2", "--checkpoint-seconds", "0"});
    return args;
  }
  // Every entry of the uninterrupted run is in `cache`, with the same bytes (timing aside).
  static void ExpectUninterruptedEntriesIn(const std::string& cache) {
    const std::map<std::string, std::string> all = ValueOrThrow(TimelessEntries((*dir_ / cache).string()));
    for (const auto& [name, entry] : ValueOrThrow(TimelessEntries((*dir_ / "uninterrupted").string()))) {
      auto found = all.find(name);
      ASSERT_NE(found, all.end()) << name << " is missing from " << cache;
      EXPECT_TRUE(found->second == entry) << name << " differs from the uninterrupted run's";
    }
  }
  static fs::path* dir_;
};

fs::path* MultiviewCheckpointTest::dir_ = nullptr;

TEST_F(MultiviewCheckpointTest, MoreEpochsContinueFromTheCachedResult) {
  CliResult first = RunSeqflow(Args("continued", 2));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  CliResult plan = RunSeqflow(Args("continued", 4, "plan"));
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_NE(plan.out.find("continues from iteration 2"), std::string::npos) << plan.out;

  CliResult continued = RunSeqflow(Args("continued", 4));
  ASSERT_EQ(continued.exit_code, 0) << continued.err;
  EXPECT_NE(continued.err.find("node 'perceptron': continues from iteration 2"), std::string::npos) << continued.err;
  ExpectUninterruptedEntriesIn("continued");
}

TEST_F(MultiviewCheckpointTest, AKilledTrainingResumesFromItsCheckpointToTheSameBits) {
  const int killed = StartSeqflow(Args("resumed", 4));
  ASSERT_GT(killed, 0);
  for (int wait = 0; wait < 3000 && CheckpointCount((*dir_ / "resumed").string()) == 0; ++wait)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_EQ(::kill(killed, SIGKILL), 0);
  EXPECT_EQ(WaitSeqflow(killed), -SIGKILL);
  ASSERT_GE(CheckpointCount((*dir_ / "resumed").string()), 1) << "the killed run's checkpoints";

  CliResult resumed = RunSeqflow(Args("resumed", 4));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("node 'perceptron': resuming from its checkpoint"), std::string::npos) << resumed.err;
  EXPECT_EQ(CheckpointCount((*dir_ / "resumed").string()), 0) << "removed once the entries are published";
  ExpectUninterruptedEntriesIn("resumed");
}

}  // namespace
}  // namespace seqflow::testutil

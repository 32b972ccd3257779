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
#include <thread>

#include "tests/e2e/checkpoint_pipeline_fixture.h"

namespace seqflow::testutil {
namespace multiview_checkpoint_test {

struct MultiviewCheckpointTraits {
  static constexpr const char* kTempName = "seqflow-multiview-checkpoint";
  static constexpr const char* kPipeline = "conll2002_perceptron_full.yaml";
  static constexpr const char* kBudgetSet = "epochs";
  static constexpr int kBudget = 4;
  static constexpr const char* kCheckpointSeconds = "0";
};
using MultiviewCheckpointTest = CheckpointPipelineTest<MultiviewCheckpointTraits>;

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
  for (int wait = 0; wait < 3000 && CheckpointCount(Cache("resumed")) == 0; ++wait)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_EQ(::kill(killed, SIGKILL), 0);
  EXPECT_EQ(WaitSeqflow(killed), -SIGKILL);
  ASSERT_GE(CheckpointCount(Cache("resumed")), 1) << "the killed run's checkpoints";

  CliResult resumed = RunSeqflow(Args("resumed", 4));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("node 'perceptron': resuming from its checkpoint"), std::string::npos) << resumed.err;
  EXPECT_EQ(CheckpointCount(Cache("resumed")), 0) << "removed once the entries are published";
  ExpectUninterruptedEntriesIn("resumed");
}

}  // namespace multiview_checkpoint_test
}  // namespace seqflow::testutil

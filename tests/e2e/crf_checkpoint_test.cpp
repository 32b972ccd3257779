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
#include <thread>

#include "tests/e2e/checkpoint_pipeline_fixture.h"

namespace seqflow::testutil {
namespace crf_checkpoint_test {

struct CrfCheckpointTraits {
  static constexpr const char* kTempName = "seqflow-crf-checkpoint";
  static constexpr const char* kPipeline = "conll2000_crf_small.yaml";
  static constexpr const char* kBudgetSet = "crf.max_iterations";
  static constexpr int kBudget = 40;
  static constexpr const char* kCheckpointSeconds = "0.3";
};
using CrfCheckpointTest = CheckpointPipelineTest<CrfCheckpointTraits>;

TEST_F(CrfCheckpointTest, AKilledTrainingResumesFromItsCheckpointToTheSameBits) {
  const int killed = StartSeqflow(Args("resumed", 40));
  ASSERT_GT(killed, 0);
  // Killed as soon as the first checkpoint is seen: on a quiet machine the whole training takes
  // ~0.6 s, the first save comes after 0.3 s, and a wait of "a few checkpoints" let it finish.
  for (int wait = 0; wait < 3000 && CheckpointCount(Cache("resumed")) == 0; ++wait)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_EQ(::kill(killed, SIGKILL), 0);
  EXPECT_EQ(WaitSeqflow(killed), -SIGKILL);
  ASSERT_EQ(CheckpointCount(Cache("resumed")), 1) << "the killed run's checkpoint";

  CliResult resumed = RunSeqflow(Args("resumed", 40));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("node 'crf': resuming from its checkpoint"), std::string::npos) << resumed.err;
  EXPECT_EQ(CheckpointCount(Cache("resumed")), 0) << "removed once the entry is published";
  EXPECT_EQ(ValueOrThrow(TimelessEntries(Cache("resumed"))), ValueOrThrow(TimelessEntries(Cache("uninterrupted"))));
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
  ExpectUninterruptedEntriesIn("continued");
  // Lowering it again reuses the cached 20 and continues nothing.
  CliResult lowered = RunSeqflow(Args("continued", 20, "plan"));
  EXPECT_EQ(lowered.out.find("continues"), std::string::npos) << lowered.out;
}

}  // namespace crf_checkpoint_test
}  // namespace seqflow::testutil

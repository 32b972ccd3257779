// Checkpoint and resume of an iterative node (DESIGN §11): `seqflow run` of the EM node of
// pipelines/citations_em_5000.yaml (800 iterations, no early stop) killed with SIGKILL mid-EM
// leaves a checkpoint; the rerun resumes from it and ends with the same cache entries, bit for
// bit, as a run never interrupted; the checkpoint is gone once the entry is published. Fails,
// never skips, without ../shared/data.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "tests/e2e/cli_runner.h"
#include "tests/e2e/timeless_entry.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::testutil {
namespace {

namespace fs = std::filesystem;

TEST(CheckpointResumeTest, AKilledEmResumesFromItsCheckpointToTheSameBits) {
  const fs::path dir = MakeTempDir("seqflow-checkpoint");
  auto args = [&](const std::string& cache) {
    return std::vector<std::string>{"run", PipelinePath("citations_em_5000.yaml"), "--set", "em.max_iter=800",
                                    "--set", "em.tol=0", "-j", "1", "--cache", (dir / cache).string(),
                                    "--checkpoint-seconds", "0.1"};
  };
  const int killed = StartSeqflow(args("resumed"));
  ASSERT_GT(killed, 0);
  for (int wait = 0; wait < 200 && CheckpointCount((dir / "resumed").string()) == 0; ++wait)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // a few checkpoints later
  ASSERT_EQ(::kill(killed, SIGKILL), 0);
  EXPECT_EQ(WaitSeqflow(killed), -SIGKILL);
  ASSERT_EQ(CheckpointCount((dir / "resumed").string()), 1) << "the killed run's checkpoint";

  CliResult resumed = RunSeqflow(args("resumed"));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("node 'em': resuming from its checkpoint"), std::string::npos) << resumed.err;
  EXPECT_EQ(CheckpointCount((dir / "resumed").string()), 0) << "removed once the entry is published";

  CliResult uninterrupted = RunSeqflow(args("uninterrupted"));
  ASSERT_EQ(uninterrupted.exit_code, 0) << uninterrupted.err;
  EXPECT_EQ(uninterrupted.err.find("resuming"), std::string::npos);
  EXPECT_EQ(ValueOrThrow(TimelessEntries((dir / "resumed").string())), ValueOrThrow(TimelessEntries((dir / "uninterrupted").string())));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace seqflow::testutil

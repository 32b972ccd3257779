// Checkpoint and resume of iterative nodes (DESIGN §11): `seqflow run` of the EM node of
// pipelines/citations_em_5000.yaml (800 iterations, no early stop), or of the EM_λ curve of
// pipelines/citations_folds.yaml, killed with SIGKILL mid-node leaves a checkpoint; the rerun
// resumes from it and ends with the same cache entries, bit for bit, as a run never interrupted;
// the checkpoint is gone once the entry is published. Fails, never skips, without ../shared/data.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>
#include <thread>

#include "tests/e2e/cli_runner.h"
#include "tests/e2e/timeless_entry.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::testutil {
namespace checkpoint_resume_test {

namespace fs = std::filesystem;

// Runs `seqflow ARGS(cache)` into dir/killed, SIGKILLs it `after_ms` after its first checkpoint,
// runs it again (it must say it resumes `node`), and compares every entry with a run never
// interrupted, in dir/uninterrupted.
void ExpectKilledRunResumesToTheSameBits(const fs::path& dir, const std::function<std::vector<std::string>(const std::string&)>& args,
                                         const std::string& node, int after_ms) {
  const std::string killed_cache = (dir / "resumed").string();
  const int killed = StartSeqflow(args(killed_cache));
  ASSERT_GT(killed, 0);
  for (int wait = 0; wait < 400 && CheckpointCount(killed_cache) == 0; ++wait)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::this_thread::sleep_for(std::chrono::milliseconds(after_ms));  // a few checkpoints later
  ASSERT_EQ(::kill(killed, SIGKILL), 0);
  EXPECT_EQ(WaitSeqflow(killed), -SIGKILL);
  ASSERT_EQ(CheckpointCount(killed_cache), 1) << "the killed run's checkpoint";

  CliResult resumed = RunSeqflow(args(killed_cache));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("node '" + node + "': resuming from its checkpoint"), std::string::npos) << resumed.err;
  EXPECT_EQ(CheckpointCount(killed_cache), 0) << "removed once the entry is published";

  CliResult uninterrupted = RunSeqflow(args((dir / "uninterrupted").string()));
  ASSERT_EQ(uninterrupted.exit_code, 0) << uninterrupted.err;
  EXPECT_EQ(uninterrupted.err.find("resuming"), std::string::npos);
  EXPECT_EQ(ValueOrThrow(TimelessEntries(killed_cache)), ValueOrThrow(TimelessEntries((dir / "uninterrupted").string())));
}

TEST(CheckpointResumeTest, AKilledEmResumesFromItsCheckpointToTheSameBits) {
  const fs::path dir = MakeTempDir("seqflow-checkpoint");
  ExpectKilledRunResumesToTheSameBits(
      dir,
      [](const std::string& cache) {
        return std::vector<std::string>{"run", PipelinePath("citations_em_5000.yaml"), "--set", "em.max_iter=800",
                                        "--set", "em.tol=0", "-j", "1", "--cache", cache,
                                        "--checkpoint-seconds", "0.1"};
      },
      "em", 500);
  fs::remove_all(dir);
}

// Ctrl-C stops the run, says what stopped and what a rerun takes up, keeps the checkpoint, and
// exits 130; the rerun resumes from it.
TEST(CheckpointResumeTest, CtrlCSaysWhatStoppedAndTheRerunResumes) {
  const fs::path dir = MakeTempDir("seqflow-ctrl-c");
  const std::string cache = (dir / "cache").string(), err = (dir / "err.txt").string();
  const std::vector<std::string> args = {"run", PipelinePath("citations_em_5000.yaml"), "--set", "em.max_iter=400",
                                         "--set", "em.tol=0", "-j", "1", "--cache", cache, "--checkpoint-seconds", "0.1"};
  const int run = StartSeqflow(args, ".", err);
  ASSERT_GT(run, 0);
  for (int wait = 0; wait < 400 && CheckpointCount(cache) == 0; ++wait)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_EQ(::kill(run, SIGINT), 0);
  EXPECT_EQ(WaitSeqflow(run), 130);
  const std::string said = Slurp(err);
  EXPECT_NE(said.find("interrupted: "), std::string::npos) << said;
  EXPECT_NE(said.find("stopped: em (an iterative node resumes from its last checkpoint)"), std::string::npos) << said;
  EXPECT_NE(said.find("Run the same command to go on."), std::string::npos) << said;
  EXPECT_EQ(CheckpointCount(cache), 1);
  CliResult rerun = RunSeqflow(args);
  ASSERT_EQ(rerun.exit_code, 0) << rerun.err;
  EXPECT_NE(rerun.err.find("node 'em': resuming from its checkpoint"), std::string::npos) << rerun.err;
  fs::remove_all(dir);
}

// The EM_λ curve on a reduced citation problem (P = 1,391, matrix-free: the Lanczos warm start
// is part of the state), `max_steps` normal-flow steps.
std::vector<std::string> FoldsPathArgs(const std::string& cache, int max_steps, const std::string& command = "run") {
  std::vector<std::string> args{command, PipelinePath("citations_folds.yaml"), "--set", "path.solver=matrix_free",
                                "--set", "path.max_steps=" + std::to_string(max_steps), "--cache", cache};
  if (command == "run") args.insert(args.end(), {"-j", "1", "--checkpoint-seconds", "0.1"});
  return args;
}

TEST(CheckpointResumeTest, AKilledHomotopyPathResumesFromItsCheckpointToTheSameBits) {
  const fs::path dir = MakeTempDir("seqflow-checkpoint-path");
  ExpectKilledRunResumesToTheSameBits(
      dir, [](const std::string& cache) { return FoldsPathArgs(cache, 150); }, "path", 1500);
  fs::remove_all(dir);
}

// With the path of 40 steps cached, 80 continues from step 40 to the entries of a fresh 80.
TEST(CheckpointResumeTest, ARaisedMaxStepsContinuesTheCachedHomotopyPath) {
  const fs::path dir = MakeTempDir("seqflow-continue-path");
  const std::string continued = (dir / "continued").string();
  ASSERT_EQ(RunSeqflow(FoldsPathArgs(continued, 40)).exit_code, 0);
  CliResult plan = RunSeqflow(FoldsPathArgs(continued, 80, "plan"));
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_NE(plan.out.find("continues from iteration 40"), std::string::npos) << plan.out;
  CliResult run = RunSeqflow(FoldsPathArgs(continued, 80));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("node 'path': continues from iteration 40"), std::string::npos) << run.err;
  ASSERT_EQ(RunSeqflow(FoldsPathArgs((dir / "fresh").string(), 80)).exit_code, 0);
  const std::map<std::string, std::string> all = ValueOrThrow(TimelessEntries(continued));
  for (const auto& [name, entry] : ValueOrThrow(TimelessEntries((dir / "fresh").string()))) {
    auto found = all.find(name);
    ASSERT_NE(found, all.end()) << name << " is missing from the continued run's cache";
    EXPECT_TRUE(found->second == entry) << name << " differs from the fresh run's";
  }
  fs::remove_all(dir);
}

}  // namespace checkpoint_resume_test
}  // namespace seqflow::testutil

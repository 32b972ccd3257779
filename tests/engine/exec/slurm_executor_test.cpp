// SlurmExecutor's pure parts: reading squeue's output and the sbatch command of one array. The
// executor against a real cluster is tests/e2e/slurm_sweep_test.cpp.
#include "engine/exec/slurm_executor.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace seqflow {
namespace slurm_executor_test {

TEST(ParseSqueueTest, ReadsArrayElementsAndTheirStates) {
  std::map<std::string, TaskState> states =
      ParseSqueue("101_0 R\n101_1 PD\n101_2 CG\n101_[3-9%2] PD\n102_0 CD\n102_1 OOM\n102_2 F\n103_0 CA\ngarbage\n\n");
  EXPECT_EQ(states.size(), 7u);
  EXPECT_EQ(states.at("101_0"), TaskState::kRunning);
  EXPECT_EQ(states.at("101_1"), TaskState::kQueued);
  EXPECT_EQ(states.at("101_2"), TaskState::kRunning) << "completing: still the scheduler's";
  EXPECT_EQ(states.count("101_[3-9%2]"), 0u) << "an unsplit pending range names no element";
  EXPECT_EQ(states.at("102_0"), TaskState::kEnded);
  EXPECT_EQ(states.at("102_1"), TaskState::kEnded);
  EXPECT_EQ(states.at("102_2"), TaskState::kEnded);
  EXPECT_EQ(states.at("103_0"), TaskState::kEnded);
}

TEST(SlurmExecutorTest, OneArrayRunsRunNodeOnEachLineOfItsList) {
  SlurmOptions options;
  options.seqflow_binary = "/opt/seq flow/seqflow";
  options.cache_dir = "/shared/cache";
  options.work_dir = "/home/me/exp";
  options.sweep_dir = "/shared/cache/sweeps/s1";
  options.job_name = "seqflow-s1";
  options.partition = "short";
  options.max_jobs = 8;
  options.sbatch_args = {"--account=nlp", "--time=01:00:00"};
  options.checkpoint_seconds = 0.5;  // the sweep's --checkpoint-seconds reaches every task
  SlurmExecutor executor(options, Env::Default());
  std::vector<std::string> argv = executor.SbatchCommand("/shared/cache/sweeps/s1/tasks-0.keys", 36, 2, 4096);
  std::vector<std::string> expected = {"sbatch",
                                       "--parsable",
                                       "--array=0-35%8",
                                       "--job-name=seqflow-s1",
                                       "--cpus-per-task=2",
                                       "--output=/shared/cache/sweeps/s1/logs/%A_%a.out",
                                       "--error=/shared/cache/sweeps/s1/logs/%A_%a.err",
                                       "--chdir=/home/me/exp",
                                       "--mem=4096M",
                                       "--partition=short",
                                       "--account=nlp",
                                       "--time=01:00:00",
                                       "--wrap=exec '/opt/seq flow/seqflow' run-node --cache /shared/cache --threads 2 "
                                       "--checkpoint-seconds 0.5 --list /shared/cache/sweeps/s1/tasks-0.keys"};
  EXPECT_EQ(argv, expected);
}

TEST(SlurmExecutorTest, NoLimitAndNoMemoryLeaveTheirFlagsOut) {
  SlurmOptions options;
  options.seqflow_binary = "/bin/seqflow";
  options.sweep_dir = "/c/sweeps/s";
  SlurmExecutor executor(options, Env::Default());
  std::vector<std::string> argv = executor.SbatchCommand("/c/sweeps/s/tasks-0.keys", 1, 1, 0);
  EXPECT_EQ(argv[2], "--array=0-0");
  for (const std::string& arg : argv) {
    EXPECT_FALSE(arg.starts_with("--mem")) << arg;
    EXPECT_FALSE(arg.starts_with("--partition")) << arg;
  }
}

TEST(SlurmExecutorTest, ADataParallelArrayTaskIsAnMpiJobStartedBySrun) {
  SlurmOptions options;
  options.seqflow_binary = "/bin/seqflow";
  options.cache_dir = "/c";
  options.sweep_dir = "/c/sweeps/s";
  SlurmExecutor executor(options, Env::Default());
  std::vector<std::string> argv = executor.SbatchCommand("/c/sweeps/s/tasks-0.keys", 4, 2, 2048, 3);
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--ntasks=3"), argv.end());
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--cpus-per-task=2"), argv.end());
  EXPECT_EQ(argv.back(),
            "--wrap=exec srun --mpi=pmix /bin/seqflow run-node --cache /c --threads 2 --checkpoint-seconds 30 --list "
            "/c/sweeps/s/tasks-0.keys");
}

}  // namespace slurm_executor_test
}  // namespace seqflow

// `seqflow run --executor processes`: the sweep driver with a `seqflow run-node` child per node on
// this machine (engine/exec/process_executor.h). The EM_λ sweeps of citations_em_lambda.yaml give
// the local run's metrics bit for bit; a child killed mid-node is reported with its node and
// signal, and a rerun completes. Fails, never skips, without ../shared/data.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "tests/e2e/cli_runner.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::testutil {
namespace process_sweep_test {

namespace fs = std::filesystem;

class ProcessSweepTest : public ::testing::Test {
 protected:
  ProcessSweepTest() : dir_(MakeTempDir("seqflow-processes")) {}
  ~ProcessSweepTest() override { fs::remove_all(dir_); }
  std::vector<std::string> Args(const std::string& cache, const std::string& out, bool swept,
                                const std::vector<std::string>& sets = {}) const {
    std::vector<std::string> args = {"run",        PipelinePath("citations_em_lambda.yaml"),
                                     "--ablation", "start",
                                     "--cache",    (dir_ / cache).string(),
                                     "--out",      (dir_ / out).string(),
                                     "--replace"};  // reruns record into the same folder
    if (swept) args.insert(args.end(), {"--executor", "processes", "--max-jobs", "2", "--poll-seconds", "0.1"});
    for (const std::string& set : sets) args.insert(args.end(), {"--set", set});
    return args;
  }
  fs::path dir_;
};

// Sweeps of 5 λ instead of 41 (a fifth of the CPU): every node still a task of its own.
TEST_F(ProcessSweepTest, ChildProcessesGiveTheLocalRunsMetricsBitForBit) {
  const std::vector<std::string> five_lambdas = {"sweep.lambdas=[0.0, 0.25, 0.5, 0.75, 1.0]"};
  CliResult local = RunSeqflow(Args("local", "local-out", false, five_lambdas));
  ASSERT_EQ(local.exit_code, 0) << local.err;
  CliResult swept = RunSeqflow(Args("swept", "swept-out", true, five_lambdas));
  ASSERT_EQ(swept.exit_code, 0) << swept.err;
  EXPECT_NE(swept.err.find("sweep: 7 computed by 7 tasks"), std::string::npos) << swept.err;
  EXPECT_EQ(KeysAndMetrics(ReadSummary((dir_ / "swept-out").string())),
            KeysAndMetrics(ReadSummary((dir_ / "local-out").string())));
}

// The pid of a running `seqflow run-node` child computing node `node`: it holds the node's key
// lock (so killing it leaves a lock for the rerun to break).
pid_t ChildComputing(const fs::path& cache, const std::string& node) {
  std::string key;
  if (fs::exists(cache / "sweeps"))
    for (const auto& sweep : fs::directory_iterator(cache / "sweeps")) {
      std::istringstream lines(Slurp(sweep.path() / "tasks.tsv"));
      for (std::string line; std::getline(lines, line);)
        if (line.find("node '" + node + "'") != std::string::npos) key = line.substr(line.find('\t') + 1, 32);
    }
  if (key.empty()) return 0;
  for (const auto& proc : fs::directory_iterator("/proc")) {
    const std::string pid = proc.path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string cmdline = Slurp(proc.path() / "cmdline");
    if (cmdline.find("run-node") == std::string::npos || cmdline.find(key) == std::string::npos) continue;
    const std::string lock = Slurp(cache / "locks" / (key + ".lock"));
    return lock.find(" " + pid + "\n") != std::string::npos ? std::stoi(pid) : 0;
  }
  return 0;
}

TEST_F(ProcessSweepTest, AChildKilledMidNodeIsReportedAndARerunCompletesIt) {
  CliResult first;
  std::thread driver([&] { first = RunSeqflow(Args("cache", "out", true)); });
  pid_t child = 0;
  for (int wait = 0; wait < 600 && child == 0; ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    child = ChildComputing(dir_ / "cache", "sweep");
  }
  const bool killed = child != 0 && ::kill(child, SIGKILL) == 0;
  driver.join();
  ASSERT_TRUE(killed) << "no child computing a sweep node seen: " << first.err;
  EXPECT_EQ(first.exit_code, 1) << first.err;
  EXPECT_NE(first.err.find("node 'sweep' (hmm.em_sweep)"), std::string::npos) << first.err;
  EXPECT_NE(first.err.find("killed by signal 9"), std::string::npos) << first.err;

  CliResult rerun = RunSeqflow(Args("cache", "out", true));
  ASSERT_EQ(rerun.exit_code, 0) << rerun.err;
  bool broke_lock = false;
  for (const auto& sweep : fs::directory_iterator(dir_ / "cache" / "sweeps"))
    for (const auto& log : fs::directory_iterator(sweep.path() / "logs"))
      broke_lock = broke_lock || Slurp(log.path()).find("breaking the stale lock") != std::string::npos;
  EXPECT_TRUE(broke_lock) << "the rerun's child should break the killed child's lock";
}

}  // namespace process_sweep_test
}  // namespace seqflow::testutil

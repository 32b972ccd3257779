// `seqflow run --executor slurm` on the one-node test cluster (tests/slurm/cluster.sh, the ctest
// fixture slurm_cluster) and real data: a 6-path citations criteria grid gives the local executor's
// metrics bit for bit; a task killed with scancel is reported (node, job, stderr) and a rerun
// completes it, breaking the killed worker's lock; two drivers on one cache both succeed, and each
// key is computed once. Fails, never skips, without the cluster or ../shared/data.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <thread>

#include "engine/base/subprocess.h"
#include "tests/e2e/cli_runner.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::testutil {
namespace slurm_sweep_test {

namespace fs = std::filesystem;

// Lines "run-node KEY (node): computed" that the tasks of every sweep on `cache` printed.
std::map<std::string, int> ComputedKeys(const fs::path& cache) {
  std::map<std::string, int> computed;
  const std::regex line("run-node ([0-9a-f]+) \\([^)]*\\): computed");
  for (const auto& sweep : fs::directory_iterator(cache / "sweeps"))
    for (const auto& log : fs::directory_iterator(sweep.path() / "logs")) {
      const std::string text = Slurp(log.path());
      for (std::sregex_iterator m(text.begin(), text.end(), line), end; m != end; ++m) ++computed[(*m)[1]];
    }
  return computed;
}

class SlurmSweepTest : public ::testing::Test {
 protected:
  SlurmSweepTest() : dir_(MakeTempDir("seqflow-slurm")) { ::setenv("SLURM_CONF", SEQFLOW_SLURM_CONF, 1); }
  ~SlurmSweepTest() override { fs::remove_all(dir_); }

  static std::vector<std::string> OnSlurm(std::vector<std::string> args) {
    for (const char* a : {"--executor", "slurm", "--poll-seconds", "0.3"}) args.push_back(a);
    return args;
  }

  fs::path dir_;
};

TEST_F(SlurmSweepTest, TheCriteriaGridGivesTheLocalExecutorsMetricsBitForBit) {
  // 6 of the 36 paths of Fig. 3-4 (3 unlabeled sizes x 2 seeds), 6 path steps each: every node kind
  // of the grid runs as a task (173 instances).
  const fs::path pipeline = dir_ / "grid.yaml";
  std::ofstream(pipeline) << "name: criteria-grid\ninclude: " << PipelinePath("citations_criteria.yaml")
                          << "\nvars: {data: " << DataDir() << ", path_steps: 6}\n"
                          << "ablations:\n  unlabeled: {unlabeled.count: [100, 300, 500]}\nrepeat: 2\n";
  const std::vector<std::string> grid = {"run", pipeline.string(), "--ablation", "unlabeled"};
  std::vector<std::string> local = grid, swept = OnSlurm(grid);
  local.insert(local.end(), {"--cache", (dir_ / "local").string(), "--out", (dir_ / "local-out").string()});
  swept.insert(swept.end(),
               {"--cache", (dir_ / "slurm").string(), "--out", (dir_ / "slurm-out").string(), "--bundle", "8"});
  CliResult l = RunSeqflow(local);
  ASSERT_EQ(l.exit_code, 0) << l.err;
  CliResult s = RunSeqflow(swept);
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_NE(s.err.find("sweep: 173 computed by 173 tasks"), std::string::npos) << s.err;

  nlohmann::json on_slurm = ReadSummary((dir_ / "slurm-out").string());
  ASSERT_EQ(on_slurm.at("runs").size(), 6u);
  for (size_t run = 0; run < 6; ++run)
    for (const auto& [node, status] : NodeStatuses(on_slurm, run)) EXPECT_EQ(status, "cached") << node;
  std::map<std::string, nlohmann::json> expected = KeysAndMetrics(ReadSummary((dir_ / "local-out").string()));
  std::map<std::string, nlohmann::json> got = KeysAndMetrics(on_slurm);
  ASSERT_EQ(got.size(), expected.size());
  // nlohmann keeps doubles as parsed: equal JSON is equal bits.
  for (const auto& [node, value] : expected) EXPECT_EQ(got[node], value) << node;

  // Nothing left to compute: a second sweep submits no task.
  swept.push_back("--replace");
  CliResult again = RunSeqflow(swept);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find("sweep: 0 computed by 0 tasks in 0 waves, 173 cached"), std::string::npos) << again.err;
}

// The handle ("JOB_i") and key of the task that runs `node`, from the sweep's tasks.tsv.
std::pair<std::string, std::string> TaskOf(const fs::path& cache, const std::string& node) {
  if (!fs::exists(cache / "sweeps")) return {};
  for (const auto& sweep : fs::directory_iterator(cache / "sweeps")) {
    std::istringstream lines(Slurp(sweep.path() / "tasks.tsv"));
    for (std::string line; std::getline(lines, line);) {
      if (line.find("node '" + node + "'") == std::string::npos) continue;
      const size_t tab = line.find('\t');
      return {line.substr(0, tab), line.substr(tab + 1, line.find('\t', tab + 1) - tab - 1)};
    }
  }
  return {};
}

bool IsRunning(const std::string& handle) {
  Result<ProcessOutput> q = RunProcess({"squeue", "--noheader", "--array", "--format=%i %t"});
  return q.ok() && q->out.find(handle + " R") != std::string::npos;
}

TEST_F(SlurmSweepTest, ACancelledTaskIsReportedAndARerunCompletesIt) {
  const fs::path cache = dir_ / "cache";
  // 30 L-BFGS iterations (about 5 s on one core; converged takes ~6x that, for nothing this test
  // checks): long enough to be cancelled mid-way.
  const std::vector<std::string> args =
      OnSlurm({"run", PipelinePath("conll2000_crf.yaml"), "--ablation", "decoder", "--set", "crf.max_iterations=30",
               "--cache", cache.string(), "--out", (dir_ / "out").string(), "--replace"});
  CliResult first;
  std::thread driver([&] { first = RunSeqflow(args); });
  // Cancel the CRF's training once its task runs and holds the key's lock.
  std::string handle;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(3);
  while (std::chrono::steady_clock::now() < deadline) {
    const auto [task, key] = TaskOf(cache, "crf");
    handle = task;
    if (!handle.empty() && IsRunning(handle) && fs::exists(cache / "locks" / (key + ".lock"))) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  std::this_thread::sleep_for(std::chrono::seconds(1));
  Result<ProcessOutput> cancelled = RunProcess({"scancel", handle});
  driver.join();
  ASSERT_FALSE(handle.empty()) << "the crf task never ran: " << first.err;
  ASSERT_TRUE(cancelled.ok() && cancelled->exit_code == 0) << handle;
  EXPECT_EQ(first.exit_code, 1) << first.err;
  EXPECT_NE(first.err.find("node 'crf' (crf.train)"), std::string::npos) << first.err;
  EXPECT_NE(first.err.find("failed in task " + handle), std::string::npos) << first.err;
  EXPECT_NE(first.err.find("without a status record"), std::string::npos) << first.err;
  EXPECT_NE(first.err.find("Slurm job " + handle), std::string::npos) << first.err;
  EXPECT_TRUE(fs::exists(cache / "locks")) << "the killed worker left its lock";

  CliResult rerun = RunSeqflow(args);
  ASSERT_EQ(rerun.exit_code, 0) << rerun.err;
  nlohmann::json summary = ReadSummary((dir_ / "out").string());
  EXPECT_NEAR(MetricOf(summary, "score", "f1"), 0.92932, 5e-5);  // as a local run's 30 iterations
  bool broke_lock = false;
  for (const auto& sweep : fs::directory_iterator(cache / "sweeps"))
    for (const auto& log : fs::directory_iterator(sweep.path() / "logs"))
      broke_lock = broke_lock || Slurp(log.path()).find("breaking the stale lock") != std::string::npos;
  EXPECT_TRUE(broke_lock) << "the rerun's crf task should break the killed worker's lock";
}

TEST_F(SlurmSweepTest, SigtermCancelsTheSubmittedJobsAndWhatWasPublishedIsReused) {
  const fs::path cache = dir_ / "cache";
  const std::vector<std::string> args = OnSlurm({"run", PipelinePath("citations_criteria.yaml"), "--ablation",
                                                 "unlabeled", "--set", "path.max_steps=6", "--cache", cache.string()});
  const int driver = StartSeqflow(args);
  ASSERT_GT(driver, 0);
  // Until tasks have published something and more are queued.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
  auto published = [&] {
    int n = 0;
    try {  // files come and go (temp files renamed) while we count
      for (const auto& entry : fs::recursive_directory_iterator(cache)) n += entry.path().extension() == ".sfa";
    } catch (const fs::filesystem_error&) {
    }
    return n;
  };
  while (std::chrono::steady_clock::now() < deadline && (!fs::exists(cache) || published() < 20))
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ASSERT_EQ(::kill(driver, SIGTERM), 0);
  EXPECT_EQ(WaitSeqflow(driver), 130);
  // Cancelled jobs pass through CG (completing) and linger MinJobAge seconds as CA: wait for them to
  // leave, which a job the driver forgot would never do.
  std::string left;
  for (int wait = 0; wait < 60; ++wait) {
    Result<ProcessOutput> queue = RunProcess({"squeue", "--noheader", "--format=%j %t"});
    ASSERT_TRUE(queue.ok());
    left = queue->out.find("seqflow-") == std::string::npos ? "" : queue->out;
    if (left.empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  EXPECT_EQ(left, "") << "left in the queue 30 s after the driver's exit";

  std::vector<std::string> plan = {"plan",       PipelinePath("citations_criteria.yaml"),
                                   "--ablation", "unlabeled",
                                   "--set",      "path.max_steps=6",
                                   "--cache",    cache.string()};
  CliResult planned = RunSeqflow(plan);
  ASSERT_EQ(planned.exit_code, 0) << planned.err;
  int reused = 0;
  std::istringstream lines(planned.out);
  for (std::string line; std::getline(lines, line);) reused += line.starts_with("  -    ");
  EXPECT_GE(reused, 20) << planned.out;
}

TEST_F(SlurmSweepTest, ADataParallelNodeRunsAsAnMpiJobOfTaskProcessesRanks) {
  // Open MPI refuses root unless told; sbatch passes the driver's environment to the tasks.
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  const std::string pipeline = PipelinePath("citations_em_5000.yaml");
  CliResult local = RunSeqflow({"run", pipeline, "--cache", (dir_ / "local").string(), "--out", (dir_ / "l").string()});
  ASSERT_EQ(local.exit_code, 0) << local.err;
  CliResult swept = RunSeqflow(OnSlurm({"run", pipeline, "--cache", (dir_ / "cache").string(), "--out",
                                        (dir_ / "s").string(), "--task-processes", "2"}));
  ASSERT_EQ(swept.exit_code, 0) << swept.err;
  EXPECT_EQ(KeysAndMetrics(ReadSummary((dir_ / "s").string())), KeysAndMetrics(ReadSummary((dir_ / "l").string())));
  bool two_ranks = false;
  for (const auto& sweep : fs::directory_iterator(dir_ / "cache" / "sweeps"))
    for (const auto& log : fs::directory_iterator(sweep.path() / "logs"))
      two_ranks = two_ranks || Slurp(log.path()).find("(em): computed on 2 processes") != std::string::npos;
  EXPECT_TRUE(two_ranks) << "hmm.em declares itself data-parallel: its task is srun --mpi=pmix of 2 ranks";
}

TEST_F(SlurmSweepTest, TwoDriversOnOneCacheBothSucceedAndEachKeyIsComputedOnce) {
  const fs::path cache = dir_ / "cache";
  auto args = [&](const std::string& out) {
    return OnSlurm({"run", PipelinePath("citations_em_lambda.yaml"), "--ablation", "start", "--cache", cache.string(),
                    "--out", (dir_ / out).string()});
  };
  CliResult a, b;
  std::thread first([&] { a = RunSeqflow(args("a")); });
  std::thread second([&] { b = RunSeqflow(args("b")); });
  first.join();
  second.join();
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(KeysAndMetrics(ReadSummary((dir_ / "a").string())), KeysAndMetrics(ReadSummary((dir_ / "b").string())));
  std::map<std::string, int> computed = ComputedKeys(cache);
  EXPECT_EQ(computed.size(), 7u) << "readers, vocab, supervised and the two sweeps";
  for (const auto& [key, times] : computed) EXPECT_EQ(times, 1) << key;
}

}  // namespace slurm_sweep_test
}  // namespace seqflow::testutil

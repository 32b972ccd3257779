// Faults of the disk as a user of the real binary meets them (issue 17, item 5): a read-only
// cache directory, and a cache removed again and again while runs go on. The faults of single
// system calls (ENOSPC, EIO at each step of a publish) are injected below the executor in
// tests/engine/exec/disk_faults_test.cpp.
#include <gtest/gtest.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <thread>

#include "tests/e2e/cli_runner.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::testutil {
namespace disk_faults_test {

namespace fs = std::filesystem;

// Root ignores file permissions (CAP_DAC_OVERRIDE), so for a read-only directory to be one to
// the seqflow children, this process drops that capability from its bounding set: every program
// it starts from now on runs without it. Other users meet the permissions anyway.
void DropPermissionOverride() {
  if (::geteuid() != 0) return;
  for (int capability : {CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH})
    ASSERT_EQ(::prctl(PR_CAPBSET_DROP, capability, 0, 0, 0), 0) << std::strerror(errno);
}

void SetWritable(const std::string& dir, bool writable) {
  const fs::perms write = fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write;
  const auto options = writable ? fs::perm_options::add : fs::perm_options::remove;
  fs::permissions(dir, write, options);
  for (const auto& entry : fs::recursive_directory_iterator(dir)) fs::permissions(entry.path(), write, options);
}

std::vector<std::string> LinesWith(const std::string& text, const std::string& needle) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.find(needle) != std::string::npos) lines.push_back(line);
  return lines;
}

int FilesIn(const std::string& dir) {
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) files += entry.is_regular_file();
  return files;
}

// Every node's metrics, per run, of a summary.json.
std::vector<nlohmann::json> Metrics(const nlohmann::json& summary) {
  std::vector<nlohmann::json> out;
  for (const auto& run : summary.at("runs")) {
    nlohmann::json metrics;
    for (const auto& [name, node] : run.at("nodes").items()) metrics[name] = node.value("metrics", nlohmann::json());
    out.push_back(metrics);
  }
  return out;
}

class DiskFaultsE2eTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { DropPermissionOverride(); }
  void SetUp() override {
    dir_ = MakeTempDir("seqflow-diskfaults");
    cache_ = dir_ + "/cache";
  }
  void TearDown() override {
    if (fs::exists(cache_)) SetWritable(cache_, true);
  }
  // `settings` are --set arguments.
  CliResult Run(const std::string& pipeline, const std::string& out, const std::string& cache,
                const std::vector<std::string>& settings = {}) {
    std::vector<std::string> args = {"run", PipelinePath(pipeline), "--cache", cache, "--out", dir_ + "/" + out, "-j", "2"};
    for (const std::string& setting : settings) args.insert(args.end(), {"--set", setting});
    return RunSeqflow(args);
  }
  // The metrics of a run of `pipeline` on a fresh, writable cache.
  std::vector<nlohmann::json> Reference(const std::string& pipeline, const std::vector<std::string>& settings = {}) {
    CliResult clean = Run(pipeline, "reference", dir_ + "/clean-cache", settings);
    EXPECT_EQ(clean.exit_code, 0) << clean.err;
    EXPECT_TRUE(LinesWith(clean.err, "warning: ").empty()) << clean.err;
    return Metrics(ReadSummary(dir_ + "/reference"));
  }
  std::string dir_, cache_;
};

// An empty cache directory that cannot be written: everything is computed, the results are a
// writable cache's, the run says so in one warning (both ablation runs, every node, the run
// history) naming the directory, and exits 0; `seqflow plan` still works.
TEST_F(DiskFaultsE2eTest, AReadOnlyCacheComputesEverythingAndWarnsOnce) {
  const std::vector<nlohmann::json> reference = Reference("tests/tiny_hmm.yaml");
  fs::create_directories(cache_);
  SetWritable(cache_, false);
  CliResult run = Run("tests/tiny_hmm.yaml", "readonly", cache_);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::vector<std::string> warnings = LinesWith(run.err, "warning: ");
  ASSERT_EQ(warnings.size(), 1u) << run.err;
  EXPECT_NE(warnings[0].find("result not cached"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find(cache_), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("Permission denied"), std::string::npos) << warnings[0];
  const nlohmann::json summary = ReadSummary(dir_ + "/readonly");
  ASSERT_EQ(summary.at("runs").size(), 2u);
  for (size_t r = 0; r < 2; ++r)
    for (const auto& [node, status] : NodeStatuses(summary, r)) EXPECT_NE(status, "failed") << node;
  EXPECT_EQ(Metrics(summary), reference);
  EXPECT_EQ(FilesIn(cache_), 0);

  CliResult plan = RunSeqflow({"plan", PipelinePath("tests/tiny_hmm.yaml"), "--cache", cache_});
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_EQ(LinesWith(plan.out, "8 of 8 nodes would run").size(), 2u) << plan.out;
}

// A full cache made read-only (a shared, archived cache): everything loads, nothing is said.
TEST_F(DiskFaultsE2eTest, AReadOnlyFullCacheServesEveryNodeSilently) {
  CliResult first = Run("tests/tiny_hmm.yaml", "first", cache_);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  SetWritable(cache_, false);
  CliResult again = Run("tests/tiny_hmm.yaml", "again", cache_);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_TRUE(LinesWith(again.err, "warning: ").empty()) << again.err;
  const nlohmann::json summary = ReadSummary(dir_ + "/again");
  for (size_t r = 0; r < 2; ++r)
    for (const auto& [node, status] : NodeStatuses(summary, r)) EXPECT_EQ(status, "cached") << node;
  EXPECT_EQ(Metrics(summary), Metrics(ReadSummary(dir_ + "/first")));
  CliResult plan = RunSeqflow({"plan", PipelinePath("tests/tiny_hmm.yaml"), "--cache", cache_});
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_EQ(LinesWith(plan.out, "0 of 8 nodes would run").size(), 2u) << plan.out;
}

// A cluster task (run-node) whose result cannot be stored has failed: its point is the entry.
TEST_F(DiskFaultsE2eTest, RunNodeOnAReadOnlyCacheFailsNamingTheCause) {
  fs::create_directories(cache_);
  SetWritable(cache_, false);
  CliResult task =
      RunSeqflow({"run-node", "--pipeline", PipelinePath("tests/tiny_hmm.yaml"), "--node", "train", "--cache", cache_});
  EXPECT_EQ(task.exit_code, 1) << task.err;
  const std::vector<std::string> errors = LinesWith(task.err, "error: ");
  ASSERT_EQ(errors.size(), 1u) << task.err;
  EXPECT_NE(errors[0].find("node 'train': result not cached"), std::string::npos) << errors[0];
  EXPECT_NE(errors[0].find(cache_), std::string::npos) << errors[0];
  EXPECT_NE(errors[0].find("Permission denied"), std::string::npos) << errors[0];
}

// The cache directory removed every few milliseconds while the five runs of the homotopy
// pipeline go on (rm -rf of a cache in use): each run ends with the right results, or fails
// with a message naming the cache; never a crash. A last run on whatever the cache then holds
// loads only right entries.
TEST_F(DiskFaultsE2eTest, ACacheRemovedWhileRunningNeverCrashesNorServesAWrongEntry) {
  const std::string pipeline = "tests/tiny_homotopy.yaml";
  // The path stopped by its budget after 20 steps (its final state kept, as a longer budget would
  // continue it): every kind of entry and state is still written while the cache goes, in a third of
  // the 200 steps' time (14 s a run under ASan).
  const std::vector<std::string> settings = {"path.max_steps=20"};
  const std::vector<nlohmann::json> reference = Reference(pipeline, settings);
  int succeeded = 0;
  for (int attempt = 0; attempt < 4; ++attempt) {
    SCOPED_TRACE("attempt " + std::to_string(attempt));
    std::atomic<bool> done{false};
    std::atomic<int> removals{0};
    std::thread remover([&] {
      while (!done) {
        std::error_code ignored;  // the run recreates directories as we remove them
        if (fs::remove_all(cache_, ignored) > 0) ++removals;
        std::this_thread::sleep_for(std::chrono::milliseconds(5 + 10 * attempt));
      }
    });
    const std::string out = "removed" + std::to_string(attempt);
    CliResult run = Run(pipeline, out, cache_, settings);
    done = true;
    remover.join();
    EXPECT_GT(removals, 0);
    ASSERT_GE(run.exit_code, 0) << "killed by signal " << -run.exit_code << "\n" << run.err;
    if (run.exit_code == 0) {
      ++succeeded;
      EXPECT_EQ(Metrics(ReadSummary(dir_ + "/" + out)), reference);
    } else {
      EXPECT_EQ(run.exit_code, 1) << run.err;
      EXPECT_FALSE(LinesWith(run.err, cache_).empty()) << run.err;
    }
    for (const std::string& warning : LinesWith(run.err, "warning: "))
      EXPECT_NE(warning.find(cache_), std::string::npos) << warning;
  }
  EXPECT_GT(succeeded, 0);
  CliResult last = Run(pipeline, "last", cache_, settings);
  ASSERT_EQ(last.exit_code, 0) << last.err;
  EXPECT_EQ(Metrics(ReadSummary(dir_ + "/last")), reference);
}

}  // namespace disk_faults_test
}  // namespace seqflow::testutil

// `cache gc --keep-days 0` in a loop beside runs and a process sweep on the same cache, every file
// of which is two days old: gc may remove only what no live run uses (cache_leases.h), so no run
// or task fails, and a gc that finds the cache in use says so (exit 3) and removes nothing.
// Without the leases, such a gc removes entries between a run's look and its load ("cache entry
// ... is gone") and a running node's checkpoints.
#include <gtest/gtest.h>
#include <utime.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <thread>

#include "tests/e2e/cli_runner.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::testutil {
namespace gc_beside_runs_test {

namespace fs = std::filesystem;

// Every file under `dir` last used two days ago.
void AgeTwoDays(const fs::path& dir) {
  const time_t then = std::time(nullptr) - 2 * 86400;
  const struct utimbuf times = {then, then};
  for (const auto& file : fs::recursive_directory_iterator(dir))
    if (file.is_regular_file()) ::utime(file.path().c_str(), &times);
}

TEST(GcBesideRuns, NoRunOrSweepFailsWhileGcRunsInALoop) {
  const fs::path dir = MakeTempDir("seqflow-gc-beside");
  const std::string cache = (dir / "cache").string();
  auto run = [&](const std::string& pipeline, const std::string& out, bool swept) {
    std::vector<std::string> args = {"run", PipelinePath(pipeline), "--cache", cache, "--out", (dir / out).string(),
                                     "--replace"};
    if (swept) args.insert(args.end(), {"--executor", "processes", "--max-jobs", "2", "--poll-seconds", "0.05"});
    return RunSeqflow(args);
  };
  ASSERT_EQ(run("tests/tiny_hmm.yaml", "first", false).exit_code, 0);
  int failed_runs = 0, gc_removed = 0, gc_refused = 0;
  constexpr int kRounds = 6;
  for (int round = 0; round < kRounds; ++round) {
    AgeTwoDays(cache);
    std::vector<std::future<CliResult>> runs;
    for (int i = 0; i < 2; ++i)
      runs.push_back(std::async(std::launch::async, run, "tests/tiny_hmm.yaml", "hmm-" + std::to_string(i), false));
    runs.push_back(std::async(std::launch::async, run, "tests/tiny_homotopy.yaml", "sweep", round % 2 == 1));
    auto all_done = [&] {
      for (auto& r : runs)
        if (r.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return false;
      return true;
    };
    do {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      const CliResult gc = RunSeqflow({"cache", "--cache", cache, "gc", "--keep-days", "0"});
      if (gc.exit_code == 3) {
        ++gc_refused;
        EXPECT_NE(gc.err.find("is in use"), std::string::npos) << gc.err;
      } else {
        EXPECT_EQ(gc.exit_code, 0) << gc.err;
        ++gc_removed;
      }
    } while (!all_done());
    for (auto& r : runs) {
      const CliResult result = r.get();
      if (result.exit_code != 0) ++failed_runs;
      EXPECT_EQ(result.exit_code, 0) << "round " << round << ": " << result.err;
    }
  }
  EXPECT_EQ(failed_runs, 0);
  EXPECT_GT(gc_refused, 0);  // the loop did meet live runs
  // With nothing running, gc removes what a last run left, all of it two days old.
  ASSERT_EQ(run("tests/tiny_hmm.yaml", "last", false).exit_code, 0);
  AgeTwoDays(cache);
  const CliResult last = RunSeqflow({"cache", "--cache", cache, "gc", "--keep-days", "0"});
  ASSERT_EQ(last.exit_code, 0) << last.err;
  EXPECT_EQ(last.out.find("removed 0 entries"), std::string::npos) << last.out;
  std::printf("%d gc runs removed, %d refused beside live runs\n", gc_removed, gc_refused);
  fs::remove_all(dir);
}

}  // namespace gc_beside_runs_test
}  // namespace seqflow::testutil

// The EM node of pipelines/citations_em_5000.yaml (Cora, 5,000 unlabeled references) computed by
// `mpirun -np P seqflow run-node` with P = 1, 2, 3 processes and 1 or 2 threads each: the model,
// its objective trace and metrics are the same bits as one process's (distributed_shards.h); a
// rank killed mid-run fails the job and nothing is published. Open MPI from Debian; fails, never
// skips, without mpirun or ../shared/data.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "engine/base/subprocess.h"
#include "engine/cache/entry_format.h"
#include "engine/cli/session.h"
#include "tests/e2e/cli_runner.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::testutil {
namespace {

namespace fs = std::filesystem;


// The entry of `key` without its compute time: artifact, metrics and attachments, byte for byte.
std::string EntryWithoutTime(const fs::path& cache, const std::string& key) {
  const fs::path file = cache / key.substr(0, 2) / (key + ".sfa");
  Result<CacheEntry> entry = DecodeEntry(Slurp(file), cli::TheRegistry());
  EXPECT_TRUE(entry.ok()) << file << ": " << entry.status().ToString();
  if (!entry.ok()) return "";
  entry->seconds = 0;
  return EncodeEntry(*entry);
}

class MpiEmTest : public ::testing::Test {
 protected:
  MpiEmTest() : dir_(MakeTempDir("seqflow-mpi")), cache_(dir_ / "cache") {
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  }
  ~MpiEmTest() override { fs::remove_all(dir_); }

  // The pipeline run in one process: every entry, the em node's among them; returns em's key.
  std::string RunLocally(const std::vector<std::string>& sets) {
    std::vector<std::string> args = {"run", PipelinePath("citations_em_5000.yaml"), "--cache", cache_.string(),
                                     "-j", "1", "--out", (dir_ / "out").string()};
    for (const std::string& set : sets) args.insert(args.end(), {"--set", set});
    CliResult local = RunSeqflow(args);
    EXPECT_EQ(local.exit_code, 0) << local.err;
    return ReadSummary((dir_ / "out").string())["runs"][0]["nodes"]["em"]["key"].get<std::string>();
  }
  fs::path EntryPath(const std::string& key) const { return cache_ / key.substr(0, 2) / (key + ".sfa"); }
  std::vector<std::string> Mpirun(int processes, int threads, const std::vector<std::string>& sets) const {
    std::vector<std::string> argv = {"mpirun", "--oversubscribe", "-np", std::to_string(processes), SEQFLOW_BIN,
                                     "run-node", "--pipeline", PipelinePath("citations_em_5000.yaml"), "--node", "em",
                                     "--cache", cache_.string(), "-j", std::to_string(threads)};
    for (const std::string& set : sets) argv.insert(argv.end(), {"--set", set});
    return argv;
  }

  fs::path dir_, cache_;
};

TEST_F(MpiEmTest, TheModelAndObjectiveTraceAreTheSameBitsForOneTwoAndThreeProcesses) {
  const std::string key = RunLocally({});
  const std::string one_process = EntryWithoutTime(cache_, key);
  ASSERT_FALSE(one_process.empty());
  for (int processes : {1, 2, 3})
    for (int threads : {1, 2}) {
      SCOPED_TRACE(std::to_string(processes) + " processes x " + std::to_string(threads) + " threads");
      fs::remove(EntryPath(key));
      Result<ProcessOutput> run = RunProcess(Mpirun(processes, threads, {}));
      ASSERT_TRUE(run.ok()) << run.status().ToString();
      ASSERT_EQ(run->exit_code, 0) << run->err;
      EXPECT_NE(run->err.find("run-node " + key + " (em): computed"), std::string::npos) << run->err;
      EXPECT_EQ(EntryWithoutTime(cache_, key), one_process);
    }
}

// The ranks of an mpirun job: seqflow processes whose environment names an MPI rank.
std::vector<std::pair<int, pid_t>> Ranks() {
  std::vector<std::pair<int, pid_t>> ranks;
  for (const auto& proc : fs::directory_iterator("/proc")) {
    const std::string name = proc.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string cmdline = Slurp(proc.path() / "cmdline");
    if (!cmdline.starts_with(SEQFLOW_BIN + std::string(1, '\0') + "run-node")) continue;
    const std::string environ = Slurp(proc.path() / "environ");
    const size_t at = environ.find("OMPI_COMM_WORLD_RANK=");
    if (at == std::string::npos) continue;
    ranks.emplace_back(std::stoi(environ.substr(at + 21)), static_cast<pid_t>(std::stoi(name)));
  }
  return ranks;
}

int CountEntries(const fs::path& cache) {
  int entries = 0;
  for (const auto& file : fs::recursive_directory_iterator(cache)) entries += file.path().extension() == ".sfa";
  return entries;
}

TEST_F(MpiEmTest, ARankKilledMidRunFailsTheJobAndNothingIsPublished) {
  RunLocally({"em.max_iter=1"});  // the em node's inputs, in the cache
  const int entries = CountEntries(cache_);
  // 3,000 iterations (tol 0: no early stop) keep the job busy for several seconds.
  ProcessOutput job;
  std::thread mpirun([&] { job = RunProcess(Mpirun(2, 1, {"em.max_iter=3000", "em.tol=0"})).value(); });
  pid_t victim = 0;
  for (int wait = 0; wait < 300 && victim == 0; ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    for (const auto& [rank, pid] : Ranks())
      if (rank == 1) victim = pid;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // into the iterations
  const bool killed = victim != 0 && ::kill(victim, SIGKILL) == 0;
  mpirun.join();
  ASSERT_TRUE(killed) << "no rank 1 seen";
  EXPECT_NE(job.exit_code, 0);
  EXPECT_NE(job.err.find("rank 1"), std::string::npos) << "mpirun names the rank that died:\n" << job.err;
  EXPECT_EQ(CountEntries(cache_), entries) << "a half-run job published its node";
}

}  // namespace
}  // namespace seqflow::testutil

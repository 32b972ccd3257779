// Data-parallel nodes computed by `mpirun -np P seqflow run-node` with P processes and 1 or 2
// threads each give one process's bits (distributed_shards.h): the EM node of
// pipelines/citations_em_5000.yaml (Cora, 5,000 unlabeled references; P = 1, 2, 3; and the same
// references as a ShardedCorpus, P = 2) and the CRF of
// conll2000_crf.yaml (3 L-BFGS iterations on the first 3,000 training sentences; P x threads = 2 x 1,
// 3 x 2; and trained from shards of its data, conll2000_crf_shards.yaml, 1 x 2, 2 x 1, 3 x 2), HySOL's (tests/isa_variants.yaml: its
// E-step; 2 x 1, 3 x 2) and the moment counts of the Malagasy raw text (tests/malagasy_moments_shards.yaml:
// P = 2, 3; and of the same text as a ShardedCorpus, P = 2). A rank killed mid-run fails the job and nothing is published. Open MPI from Debian; fails, never
// skips, without mpirun or ../shared/data.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "engine/base/subprocess.h"
#include "tests/e2e/cli_runner.h"
#include "tests/e2e/data_subset.h"
#include "tests/e2e/timeless_entry.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::testutil {
namespace mpi_data_parallel_test {

namespace fs = std::filesystem;

// The entry of `key` without what measures time.
std::string EntryWithoutTime(const fs::path& cache, const std::string& key) {
  Result<std::string> entry = EntryWithoutTiming(cache / key.substr(0, 2) / (key + ".sfa"));
  EXPECT_TRUE(entry.ok()) << key << ": " << entry.status().ToString();
  return entry.ok() ? *entry : "";
}

// A data-parallel node of a pipeline (its pipeline file, --ablation, --set), run locally or by
// mpirun.
struct Target {
  std::string pipeline, node, ablation;
  std::vector<std::string> sets;
};

// An mpirun job's shape: processes, and threads in each.
struct Layout {
  int processes, threads;
};
// Each process count with 1 and with 2 threads.
std::vector<Layout> WithOneAndTwoThreads(const std::vector<int>& process_counts) {
  std::vector<Layout> layouts;
  for (int processes : process_counts)
    for (int threads : {1, 2}) layouts.push_back({processes, threads});
  return layouts;
}

const Target kEm{"citations_em_5000.yaml", "em", "", {}};
// The CoNLL-2000 training file cut to its first 3,000 sentences (shards of 1,000 give each of 3
// ranks its own): the real chunker's features at a fifth of the CPU of the whole file.
const std::string& ChunkingData() {
  static const std::string data = DataSubset({{"conll2000/train.txt", 3000}});
  return data;
}
// Three L-BFGS iterations of the CoNLL-2000 chunker (every value and gradient spread; a job costs
// start-up, loading and publishing 3.2 M weights besides, so the CRF tests run a few process x
// thread pairs, not the whole grid).
Target CrfTarget() { return {"conll2000_crf.yaml", "crf", "decoder", {"crf.max_iterations=3", "data=" + ChunkingData()}}; }
// HySOL on 2,000 CoNLL-2000 sentences (the isa-variants pipeline): its E-step over the unlabeled
// text spread, everything else computed alike on every rank.
const Target kHysol{"tests/isa_variants.yaml", "hysol", "", {}};
// The context-word moments of the Malagasy raw text (777 K tokens): moments.collect as
// malagasy_anchors.yaml runs it, in a pipeline of nothing else (the local run's CPU is the job's).
const Target kMoments{"tests/malagasy_moments_shards.yaml", "moments", "", {}};
// CrfTarget's chunker trained from shards of 1,000 sentences (a ShardedFeatureSet, streamed).
Target CrfShardsTarget() { return {"conll2000_crf_shards.yaml", "crf", "", {"crf.max_iterations=3", "data=" + ChunkingData()}}; }
// kEm with the unlabeled references stored as shards of 700 sentences (a ShardedCorpus).
const Target kEmShards{"citations_em_5000_shards.yaml", "em", "", {}};

class MpiTest : public ::testing::Test {
 protected:
  MpiTest() : dir_(MakeTempDir("seqflow-mpi")), cache_(dir_ / "cache") {
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  }
  ~MpiTest() override { fs::remove_all(dir_); }

  static std::vector<std::string> PipelineArgs(const Target& target, const std::vector<std::string>& extra_sets) {
    std::vector<std::string> args = {PipelinePath(target.pipeline)};
    if (!target.ablation.empty()) args.insert(args.end(), {"--ablation", target.ablation});
    for (const std::string& set : target.sets) args.insert(args.end(), {"--set", set});
    for (const std::string& set : extra_sets) args.insert(args.end(), {"--set", set});
    return args;
  }
  // The pipeline run in one process: every entry, the target's among them; returns its key.
  std::string RunLocally(const Target& target, const std::vector<std::string>& extra_sets = {}) {
    std::vector<std::string> args = {"run"};
    for (const std::string& a : PipelineArgs(target, extra_sets)) args.push_back(a);
    args.insert(args.end(), {"--cache", cache_.string(), "-j", "1", "--out", (dir_ / "out").string(), "--replace"});
    CliResult local = RunSeqflow(args);
    EXPECT_EQ(local.exit_code, 0) << local.err;
    return ReadSummary((dir_ / "out").string())["runs"][0]["nodes"][target.node]["key"].get<std::string>();
  }
  fs::path EntryPath(const std::string& key) const { return cache_ / key.substr(0, 2) / (key + ".sfa"); }
  std::vector<std::string> Mpirun(const Target& target, int processes, int threads,
                                  const std::vector<std::string>& extra_sets = {}) const {
    std::vector<std::string> argv = {
        "mpirun",  "--oversubscribe", "-np", std::to_string(processes), SEQFLOW_BIN, "run-node", "--node", target.node,
        "--cache", cache_.string(),   "-j",  std::to_string(threads),   "--pipeline"};
    for (const std::string& a : PipelineArgs(target, extra_sets)) argv.push_back(a);
    return argv;
  }
  // The target's entry `key`, computed again by an mpirun job of each layout, is `expected`. The
  // kept final states go too: a job would otherwise continue from the local run's last iteration
  // (a one-process job did) instead of computing every iteration itself.
  void ExpectJobsGive(const Target& target, const std::string& key, const std::string& expected,
                      const std::vector<Layout>& layouts) {
    for (const Layout& layout : layouts) {
      SCOPED_TRACE(std::to_string(layout.processes) + " processes x " + std::to_string(layout.threads) + " threads");
      fs::remove(EntryPath(key));
      fs::remove_all(cache_ / "final_states");
      Result<ProcessOutput> run = RunProcess(Mpirun(target, layout.processes, layout.threads));
      ASSERT_TRUE(run.ok()) << run.status().ToString();
      ASSERT_EQ(run->exit_code, 0) << run->err;
      EXPECT_NE(run->err.find("run-node " + key + " (" + target.node + "): computed"), std::string::npos) << run->err;
      EXPECT_EQ(EntryWithoutTime(cache_, key), expected);
    }
  }
  // The target computed by a job of each layout gives one local process's entry.
  void ExpectSameBits(const Target& target, const std::vector<Layout>& layouts) {
    const std::string key = RunLocally(target);
    const std::string one_process = EntryWithoutTime(cache_, key);
    ASSERT_FALSE(one_process.empty());
    ExpectJobsGive(target, key, one_process, layouts);
  }

  fs::path dir_, cache_;
};

TEST_F(MpiTest, EmModelAndObjectiveTraceAreTheSameBitsForOneTwoAndThreeProcesses) {
  ExpectSameBits(kEm, WithOneAndTwoThreads({1, 2, 3}));
}

TEST_F(MpiTest, CrfWeightsAndTraceAreTheSameBitsForTwoAndThreeProcesses) { ExpectSameBits(CrfTarget(), {{2, 1}, {3, 2}}); }

TEST_F(MpiTest, HysolModelIsTheSameBitsForTwoAndThreeProcesses) { ExpectSameBits(kHysol, {{2, 1}, {3, 2}}); }

TEST_F(MpiTest, MomentCountsAreTheSameBitsForTwoAndThreeProcesses) {
  ExpectSameBits(kMoments, WithOneAndTwoThreads({2, 3}));
}

// A shard boundary inside the data: EM over the sharded references, locally and on 2 processes,
// is the unsharded run's model, trace and metrics, to the bit.
TEST_F(MpiTest, EmOnAShardedCorpusIsTheUnshardedBitsOnOneAndTwoProcesses) {
  const std::vector<std::string> five = {"em.max_iter=5"};  // a few seconds: the suite's budget
  const std::string unsharded = EntryWithoutTime(cache_, RunLocally(kEm, five));
  ASSERT_FALSE(unsharded.empty());
  const std::string key = RunLocally(kEmShards, five);
  EXPECT_EQ(EntryWithoutTime(cache_, key), unsharded);
  fs::remove(EntryPath(key));
  Result<ProcessOutput> run = RunProcess(Mpirun(kEmShards, 2, 1, five));
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  ASSERT_EQ(run->exit_code, 0) << run->err;
  EXPECT_NE(run->err.find("run-node " + key + " (em): computed"), std::string::npos) << run->err;
  EXPECT_EQ(EntryWithoutTime(cache_, key), unsharded);
  int shards = 0;
  for (const auto& file : fs::directory_iterator(cache_ / "pieces")) shards += file.path().extension() == ".sfp";
  EXPECT_EQ(shards, 8) << "5,000 references in shards of 700";
}

// A shard boundary inside the CRF's data: crf.train over the sharded features, locally and on 1, 2
// and 3 processes of 2, 1 and 2 threads (rank 0 reading every shard, the others their compute
// shards'), is the unsharded chunker's model and trace, to the bit.
TEST_F(MpiTest, CrfOnAShardedFeatureSetIsTheUnshardedBitsForOneTwoAndThreeProcesses) {
  const std::string unsharded = EntryWithoutTime(cache_, RunLocally(CrfTarget()));
  ASSERT_FALSE(unsharded.empty());
  const std::string key = RunLocally(CrfShardsTarget());
  EXPECT_EQ(EntryWithoutTime(cache_, key), unsharded);
  ExpectJobsGive(CrfShardsTarget(), key, unsharded, {{1, 2}, {2, 1}, {3, 2}});
}

// The Malagasy moments from the raw text stored as shards of 4,000 sentences, on 2 processes,
// each reading only the shards its compute shards need: the bits of the text held whole.
TEST_F(MpiTest, MomentCountsOfAShardedCorpusAreTheWholeTextsBitsOnTwoProcesses) {
  const Target whole{"tests/malagasy_moments_shards.yaml", "moments", "", {}};
  const Target sharded{"tests/malagasy_moments_shards.yaml", "moments_shards", "", {}};
  const std::string expected = EntryWithoutTime(cache_, RunLocally(whole));
  ASSERT_FALSE(expected.empty());
  const std::string key = ReadSummary((dir_ / "out").string())["runs"][0]["nodes"]["moments_shards"]["key"];
  EXPECT_EQ(EntryWithoutTime(cache_, key), expected);
  for (int threads : {1, 2}) {
    fs::remove(EntryPath(key));
    Result<ProcessOutput> run = RunProcess(Mpirun(sharded, 2, threads));
    ASSERT_TRUE(run.ok()) << run.status().ToString();
    ASSERT_EQ(run->exit_code, 0) << run->err;
    EXPECT_EQ(EntryWithoutTime(cache_, key), expected) << threads << " threads";
  }
}

// The ranks of this test's mpirun job: seqflow processes on `cache` (other tests may run MPI
// jobs at the same time) whose environment names an MPI rank.
std::vector<std::pair<int, pid_t>> Ranks(const fs::path& cache) {
  std::vector<std::pair<int, pid_t>> ranks;
  for (const auto& proc : fs::directory_iterator("/proc")) {
    const std::string name = proc.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string cmdline = Slurp(proc.path() / "cmdline");
    if (!cmdline.starts_with(SEQFLOW_BIN + std::string(1, '\0') + "run-node")) continue;
    if (cmdline.find(cache.string() + std::string(1, '\0')) == std::string::npos) continue;
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

TEST_F(MpiTest, ARankKilledMidRunFailsTheJobAndNothingIsPublished) {
  RunLocally(kEm, {"em.max_iter=1"});  // the em node's inputs, in the cache
  const int entries = CountEntries(cache_);
  // 3,000 iterations (tol 0: no early stop) keep the job busy for several seconds.
  ProcessOutput job;
  std::thread mpirun([&] { job = RunProcess(Mpirun(kEm, 2, 1, {"em.max_iter=3000", "em.tol=0"})).value(); });
  pid_t victim = 0;
  for (int wait = 0; wait < 1200 && victim == 0; ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    for (const auto& [rank, pid] : Ranks(cache_))
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

}  // namespace mpi_data_parallel_test
}  // namespace seqflow::testutil

// Faults of the disk under the real executor (issue 17, item 5): ENOSPC or EIO at any step of a
// publish (entry, key lock, run history) and at reads, random faults everywhere, a read-only
// cache, a cache removed mid-run. A run always ends with its results; a store that fails is one
// warning per cause naming the node, the file and the reason; no temp file is left (or, when its
// own removal failed, none is loaded or listed); and every entry that loads afterwards has a
// fault-free run's bytes.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "engine/exec/executor.h"
#include "tests/engine/exec/fake_kinds.h"
#include "tests/testutil/fault_env.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::testkit {
namespace disk_faults_test {

namespace fs = std::filesystem;
using testutil::Fault;
using testutil::FaultEnv;
using testutil::FileOp;
using testutil::FileOpName;

// key -> artifact bytes of a fault-free run of `dag`.
std::map<std::string, std::string> ReferenceBytes(const Dag& dag) {
  const std::string dir = testutil::MakeTempDir("seqflow-faultfree");
  Cache cache(dir, &FakeRegistry(), Env::Default());
  ArtifactMemo memo;
  RunResult r = Execute(dag, cache, memo, Env::Default(), ExecOptions{});
  EXPECT_TRUE(r.ok()) << r.FirstError().ToString();
  std::map<std::string, std::string> bytes;
  for (const DagNode& node : dag.nodes) bytes[node.key] = BytesOf(*memo.Find(node.key));
  fs::remove_all(dir);
  return bytes;
}

// The lines of `err` that contain `text`.
std::vector<std::string> LinesWith(const std::string& err, const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);)
    if (line.find(text) != std::string::npos) lines.push_back(line);
  return lines;
}
std::vector<std::string> WarningLines(const std::string& err) { return LinesWith(err, "warning: "); }

class DiskFaultsTest : public ::testing::Test {
 protected:
  DiskFaultsTest() : dir_(testutil::MakeTempDir("seqflow-faults")) {}

  struct Outcome {
    RunResult result;
    std::string err;  // what the run logged
    ArtifactMemo memo;
  };
  // Runs `dag` on the cache at dir_ through `env`, capturing the log.
  std::unique_ptr<Outcome> Run(const Dag& dag, Env* env, std::set<std::string> force = {}) {
    auto out = std::make_unique<Outcome>();
    Cache cache(dir_, &FakeRegistry(), env);
    ExecOptions options;
    options.force = std::move(force);
    ::testing::internal::CaptureStderr();
    out->result = Execute(dag, cache, out->memo, env, options);
    out->err = ::testing::internal::GetCapturedStderr();
    return out;
  }
  // Every node succeeded with the fault-free bytes.
  void ExpectRightResults(const Dag& dag, const Outcome& run) {
    ASSERT_TRUE(run.result.ok()) << run.result.FirstError().ToString();
    for (const DagNode& node : dag.nodes) {
      ArtifactPtr artifact = run.memo.Find(node.key);
      ASSERT_NE(artifact, nullptr) << node.name;
      EXPECT_EQ(BytesOf(*artifact), reference_.at(node.key)) << node.name;
    }
  }
  // No temp file anywhere in the cache (unless `temps_allowed`: a failed store whose cleanup
  // failed too), and every entry file loads (through a fault-free Env) with the fault-free bytes
  // of its key, and is listed. Returns how many entries there are.
  int ExpectOnlyRightEntries(bool temps_allowed = false) {
    int entries = 0;
    if (!fs::exists(dir_)) return 0;
    Cache clean(dir_, &FakeRegistry(), Env::Default());
    for (const auto& file : fs::recursive_directory_iterator(dir_)) {
      if (!file.is_regular_file()) continue;
      const std::string name = file.path().filename().string();
      EXPECT_TRUE(temps_allowed || name.find(".tmp.") == std::string::npos) << "temp file left: " << file.path();
      if (file.path().extension() != ".sfa") continue;
      const std::string key = file.path().stem().string();
      auto loaded = clean.Load(key);
      EXPECT_TRUE(loaded.ok() && loaded->has_value()) << file.path() << ": " << loaded.status().ToString();
      if (!loaded.ok() || !loaded->has_value()) continue;
      ++entries;
      EXPECT_TRUE(reference_.count(key)) << "entry of no node of the DAG: " << key;
      if (reference_.count(key)) {
        EXPECT_EQ(BytesOf(*(*loaded)->artifact), reference_.at(key)) << file.path();
      }
    }
    EXPECT_EQ(static_cast<int>(ValueOrThrow(clean.List()).size()), entries);
    return entries;
  }
  std::vector<std::string> LockFiles() const {
    std::vector<std::string> out;
    if (fs::exists(dir_ + "/locks"))
      for (const auto& f : fs::directory_iterator(dir_ + "/locks")) out.push_back(f.path().string());
    return out;
  }
  // Sets every temp file's mtime two hours back (a writer that died long ago); returns how many.
  int BackdateTemps() {
    int temps = 0;
    for (const auto& file : fs::recursive_directory_iterator(dir_)) {
      if (file.path().filename().string().find(".tmp.") == std::string::npos) continue;
      fs::last_write_time(file.path(), fs::last_write_time(file.path()) - std::chrono::hours(2));
      ++temps;
    }
    return temps;
  }
  void Reset() {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }

  const Dag dag_ = DemoDag();
  const std::map<std::string, std::string> reference_ = ReferenceBytes(dag_);
  std::string dir_;
};

// How many calls of `op` on paths containing `pattern` a fault-free run of `dag` makes.
int CountCalls(const Dag& dag, FileOp op, const std::string& pattern) {
  const std::string dir = testutil::MakeTempDir("seqflow-count");
  FaultEnv env;
  std::atomic<int> calls{0};
  env.SetHook([&](FileOp seen, const std::string& path) {
    if (seen == op && path.find(pattern) != std::string::npos) ++calls;
  });
  Cache cache(dir, &FakeRegistry(), &env);
  ArtifactMemo memo;
  EXPECT_TRUE(Execute(dag, cache, memo, &env, ExecOptions{}).ok());
  fs::remove_all(dir);
  return calls;
}

// One fault at the nth call of every step of publishing an entry, for every n a run makes:
// the run ends with right results, the failed store is one warning naming a node and the cause
// (none for the directory fsync: the entry is whole by then; an info line when the mkdir that
// failed was the key locks' directory), no temp file is left, and every entry that loads is right.
TEST_F(DiskFaultsTest, EnospcOrEioAtAnyStepOfAnEntryStore) {
  const std::vector<FileOp> steps = {FileOp::kMkdir, FileOp::kCreate, FileOp::kWrite,
                                     FileOp::kSync,  FileOp::kRename, FileOp::kSyncDir};
  int faults = 0;
  for (FileOp op : steps) {
    // Entries are <dir>/<xx>/<key>.sfa: their shard directories and their directory fsyncs are
    // matched by the cache's path, the files by their suffix.
    const bool on_dir = op == FileOp::kMkdir || op == FileOp::kSyncDir;
    const std::string pattern = on_dir ? dir_ + "/" : ".sfa";
    const int calls = on_dir ? CountCalls(dag_, op, "seqflow-count") : CountCalls(dag_, op, pattern);
    EXPECT_GE(calls, op == FileOp::kMkdir ? 1 : static_cast<int>(dag_.nodes.size())) << FileOpName(op);
    for (int nth = 1; nth <= calls; ++nth) {
      const int error = nth % 2 == 1 ? ENOSPC : EIO;
      SCOPED_TRACE(std::string(FileOpName(op)) + " #" + std::to_string(nth) + " fails with " + std::strerror(error));
      Reset();
      FaultEnv env;
      env.Inject(Fault{op, op == FileOp::kMkdir ? dir_ + "/" : pattern, nth, error});
      std::unique_ptr<Outcome> run = Run(dag_, &env);
      ExpectRightResults(dag_, *run);
      // Workers making one directory at once may both call mkdir (one gets EEXIST), so a run
      // makes one mkdir more or less than the counted run.
      if (op == FileOp::kMkdir && env.injected() == 0) continue;
      ASSERT_EQ(env.injected(), 1);
      ++faults;
      const std::vector<std::string> reported = LinesWith(run->err, std::strerror(error));
      if (op == FileOp::kSyncDir) {
        EXPECT_TRUE(reported.empty()) << run->err;
      } else {
        ASSERT_EQ(reported.size(), 1u) << run->err;
        EXPECT_NE(reported[0].find("node '"), std::string::npos) << reported[0];
        const bool lock = reported[0].find("key's lock") != std::string::npos;
        EXPECT_EQ(reported[0].starts_with("warning: "), !lock) << reported[0];
        EXPECT_TRUE(op == FileOp::kMkdir || !lock) << reported[0];
        EXPECT_EQ(WarningLines(run->err).size(), lock ? 0u : 1u) << run->err;
      }
      // One store failed and the rest are there; a failed mkdir may have been the locks
      // directory's, which costs no entry.
      const int entries = ExpectOnlyRightEntries();
      const int expected = static_cast<int>(dag_.nodes.size()) - (op == FileOp::kSyncDir ? 0 : 1);
      if (op == FileOp::kMkdir) {
        EXPECT_GE(entries, expected);
      } else {
        EXPECT_EQ(entries, expected);
      }
      EXPECT_TRUE(LockFiles().empty());
      // The next run reuses what was stored and recomputes the rest, right.
      std::unique_ptr<Outcome> again = Run(dag_, Env::Default());
      ExpectRightResults(dag_, *again);
      EXPECT_TRUE(WarningLines(again->err).empty()) << again->err;
      EXPECT_EQ(ExpectOnlyRightEntries(), static_cast<int>(dag_.nodes.size()));
    }
  }
  RecordProperty("faults_injected", faults);
}

// A key lock whose file cannot be created or written: the node computes without it (an info
// line: the lock only saves duplicate work), and no lock file is left behind to make later
// workers wait for an owner that never was.
TEST_F(DiskFaultsTest, EnospcOrEioAtAKeyLock) {
  for (FileOp op : {FileOp::kMkdir, FileOp::kCreate, FileOp::kWrite}) {
    for (int nth : {1, 2, 5, 12}) {
      const int error = nth % 2 == 1 ? ENOSPC : EIO;
      SCOPED_TRACE(std::string(FileOpName(op)) + " #" + std::to_string(nth) + " fails with " + std::strerror(error));
      Reset();
      FaultEnv env;
      env.Inject(Fault{op, "/locks", nth, error});
      std::unique_ptr<Outcome> run = Run(dag_, &env);
      ExpectRightResults(dag_, *run);
      if (op == FileOp::kMkdir && nth > 1) continue;  // the directory is made once
      EXPECT_EQ(env.injected(), 1);
      const std::vector<std::string> reported = LinesWith(run->err, std::strerror(error));
      ASSERT_EQ(reported.size(), 1u) << run->err;
      EXPECT_NE(reported[0].find("computing without the key's lock"), std::string::npos) << reported[0];
      EXPECT_TRUE(WarningLines(run->err).empty()) << run->err;
      EXPECT_EQ(ExpectOnlyRightEntries(), static_cast<int>(dag_.nodes.size()));
      EXPECT_TRUE(LockFiles().empty()) << LockFiles().front();
    }
  }
}

// A full disk fails every lock and every store; once space is back, the next run recomputes
// everything at once (no lock left by the full disk makes it wait for a stale lock's timeout).
TEST_F(DiskFaultsTest, AfterADiskFullRunTheNextRunComputesWithoutWaiting) {
  FaultEnv env;
  env.Inject(Fault{FileOp::kWrite, "", 0, ENOSPC});
  std::unique_ptr<Outcome> full = Run(dag_, &env);
  ExpectRightResults(dag_, *full);
  EXPECT_EQ(ExpectOnlyRightEntries(), 0);
  EXPECT_TRUE(LockFiles().empty()) << LockFiles().front();
  // Warned once per cause, not once per node and step.
  EXPECT_EQ(WarningLines(full->err).size(), 1u) << full->err;

  env.Clear();
  std::unique_ptr<Outcome> again = Run(dag_, &env);
  ExpectRightResults(dag_, *again);
  EXPECT_LT(again->result.seconds, 10.0) << "waited for locks the full disk left";
  EXPECT_EQ(ExpectOnlyRightEntries(), static_cast<int>(dag_.nodes.size()));
}

// A lock file that could not be removed when its key was stored (EIO on the unlink) is this
// process's own leftover: a later run of the same process that recomputes the key (--force, in
// each ablation run) takes it over at once instead of waiting for it to go stale.
TEST_F(DiskFaultsTest, ALockThatCouldNotBeRemovedDoesNotStallTheNextRun) {
  FaultEnv env;
  env.Inject(Fault{FileOp::kRemove, "/locks/", 0, EIO});
  std::unique_ptr<Outcome> first = Run(dag_, &env);
  ExpectRightResults(dag_, *first);
  EXPECT_EQ(LockFiles().size(), dag_.nodes.size());
  env.Clear();
  std::unique_ptr<Outcome> forced = Run(dag_, &env, {"a", "b", "c"});
  ExpectRightResults(dag_, *forced);
  for (const NodeOutcome& n : forced->result.nodes) EXPECT_EQ(n.status, NodeStatus::kComputed) << n.name;
  EXPECT_LT(forced->result.seconds, 10.0) << "waited for this process's own leftover locks";
  EXPECT_TRUE(LockFiles().empty()) << LockFiles().front();
  EXPECT_TRUE(WarningLines(forced->err).empty()) << forced->err;
}

// A rerun on a read-only cache that holds its results writes nothing: its run history is the
// stored one, which is only touched.
TEST_F(DiskFaultsTest, ARerunsRunHistoryIsNotRewritten) {
  RunHistory history;
  history.nodes["a"] = {std::string(32, 'a'), {{"kind", "const@1"}}};
  const std::string run_id = "0123456789abcdef";
  ASSERT_OK(Cache(dir_, &FakeRegistry(), Env::Default()).StoreRunHistory(run_id, history));
  FaultEnv env;
  env.MakeReadOnly(dir_);
  Cache cache(dir_, &FakeRegistry(), &env);
  EXPECT_OK(cache.StoreRunHistory(run_id, history));
  RunHistory changed = history;
  changed.nodes["a"].key = std::string(32, 'b');
  EXPECT_FALSE(cache.StoreRunHistory(run_id, changed).ok());
  auto loaded = cache.LoadRunHistory(run_id);
  ASSERT_OK(loaded);
  EXPECT_EQ(**loaded, history);
}

// EIO reading entries (a failing disk): a node whose entry cannot be read is recomputed with
// one warning naming the file and the reason, not one per node, and its entry rewritten.
TEST_F(DiskFaultsTest, EioReadingEntriesRecomputesThemAndWarnsOnce) {
  std::unique_ptr<Outcome> first = Run(dag_, Env::Default());
  ExpectRightResults(dag_, *first);
  const std::string bc_key = dag_.nodes[4].key;
  ASSERT_EQ(dag_.nodes[4].name, "bc");
  for (bool every_entry : {false, true}) {
    SCOPED_TRACE(every_entry ? "no entry reads" : "bc's entry does not read");
    FaultEnv env;
    env.Inject(Fault{FileOp::kRead, every_entry ? ".sfa" : bc_key + ".sfa", 0, EIO});
    std::unique_ptr<Outcome> run = Run(dag_, &env);
    ExpectRightResults(dag_, *run);
    for (const NodeOutcome& n : run->result.nodes)
      EXPECT_EQ(n.status, every_entry || n.name == "bc" ? NodeStatus::kComputed : NodeStatus::kCached) << n.name;
    const std::vector<std::string> warnings = WarningLines(run->err);
    ASSERT_EQ(warnings.size(), 1u) << run->err;
    EXPECT_NE(warnings[0].find(".sfa: Input/output error; recomputing"), std::string::npos) << warnings[0];
    EXPECT_EQ(ExpectOnlyRightEntries(), static_cast<int>(dag_.nodes.size()));
  }
}

// A read-only cache, empty or holding part of the results: what is there is loaded, the rest is
// computed, the run succeeds with the right results and says once that it cannot store them.
TEST_F(DiskFaultsTest, AReadOnlyCacheComputesTheRestAndWarnsOnce) {
  for (int error : {EROFS, EACCES}) {
    for (bool half_cached : {false, true}) {
      SCOPED_TRACE(std::string(std::strerror(error)) + (half_cached ? ", half cached" : ", empty"));
      Reset();
      if (half_cached) {
        DagBuilder b;
        b.Add("a", "const", {{"value", 1.5}}).Add("b", "const", {{"value", 2.25}});
        ASSERT_TRUE(Run(b.dag(), Env::Default())->result.ok());
      }
      FaultEnv env;
      env.MakeReadOnly(dir_, error);
      std::unique_ptr<Outcome> run = Run(dag_, &env);
      ExpectRightResults(dag_, *run);
      int cached = 0;
      for (const NodeOutcome& n : run->result.nodes) cached += n.status == NodeStatus::kCached;
      EXPECT_EQ(cached, half_cached ? 2 : 0);
      const std::vector<std::string> warnings = WarningLines(run->err);
      ASSERT_EQ(warnings.size(), 1u) << run->err;
      EXPECT_NE(warnings[0].find(dir_), std::string::npos) << warnings[0];
      EXPECT_NE(warnings[0].find(std::strerror(error)), std::string::npos) << warnings[0];
      EXPECT_EQ(ExpectOnlyRightEntries(), half_cached ? 2 : 0);
      EXPECT_GT(env.injected(), 0);
    }
  }
}

// The whole cache directory removed right before the nth call of each step of a publish: the
// run ends with its results, and what the cache holds afterwards is right.
TEST_F(DiskFaultsTest, TheCacheRemovedAtAnyStepOfAPublish) {
  for (FileOp op :
       {FileOp::kMkdir, FileOp::kCreate, FileOp::kWrite, FileOp::kSync, FileOp::kRename, FileOp::kSyncDir}) {
    for (int nth : {1, 3, 7}) {
      SCOPED_TRACE("cache removed before " + std::string(FileOpName(op)) + " #" + std::to_string(nth));
      Reset();
      FaultEnv env;
      std::atomic<int> seen{0};
      env.SetHook([&](FileOp at, const std::string& path) {
        std::error_code ignored;  // other writers may be adding files meanwhile
        if (at == op && path.starts_with(dir_) && ++seen == nth) fs::remove_all(dir_, ignored);
      });
      std::unique_ptr<Outcome> run = Run(dag_, &env);
      ExpectRightResults(dag_, *run);
      for (const std::string& warning : WarningLines(run->err))
        EXPECT_NE(warning.find(dir_), std::string::npos) << "a warning that names no path: " << warning;
      ExpectOnlyRightEntries();
    }
  }
}

// rm -rf of the cache while slow nodes run, twice: the run finishes with the right results
// and the entries stored after the removal load right.
TEST_F(DiskFaultsTest, TheCacheRemovedWhileSlowNodesRun) {
  const Dag dag = DemoDag(/*sleep_ms=*/400);
  const std::map<std::string, std::string> reference = ReferenceBytes(dag);
  std::thread remover([this] {
    for (int ms : {100, 200}) {
      std::this_thread::sleep_for(std::chrono::milliseconds(ms));
      fs::remove_all(dir_);
    }
  });
  std::unique_ptr<Outcome> run = Run(dag, Env::Default());
  remover.join();
  ASSERT_TRUE(run->result.ok()) << run->result.FirstError().ToString();
  for (const DagNode& node : dag.nodes) EXPECT_EQ(BytesOf(*run->memo.Find(node.key)), reference.at(node.key));
  Cache clean(dir_, &FakeRegistry(), Env::Default());
  int entries = 0;
  for (const DagNode& node : dag.nodes) {
    auto loaded = clean.Load(node.key);
    ASSERT_OK(loaded);
    if (!loaded->has_value()) continue;
    ++entries;
    EXPECT_EQ(BytesOf(*(*loaded)->artifact), reference.at(node.key)) << node.name;
  }
  // The sleepers and what follows them finish after the removals, so their entries exist.
  EXPECT_GE(entries, 3);
}

// Many faults at once, at random, with four workers: each create, write, fsync, rename, mkdir,
// directory fsync and touch in the cache fails with ENOSPC or EIO one time in six, and the
// removal of a failed store's temp file one time in two. Every run ends with the right results,
// no entry that loads is wrong, a temp file left is neither loaded nor listed and gc clears it
// once stale, and once the disk is well again the next run completes at once (no lock left
// behind stalls it) and stores everything. Lock removals are left alone: a lock whose text could
// not be written and then could not be removed either looks like another worker's lock being
// created, which is waited for until stale (120 s).
TEST_F(DiskFaultsTest, RandomFaultsEverywhereNeverGiveAWrongEntry) {
  int temps_left = 0;
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Reset();
    FaultEnv env(seed);
    for (FileOp op : {FileOp::kCreate, FileOp::kWrite, FileOp::kSync, FileOp::kSyncDir, FileOp::kRename, FileOp::kMkdir,
                      FileOp::kTouch})
      env.Inject(Fault{op, dir_, 0, 0, /*probability=*/1.0 / 6});
    env.Inject(Fault{FileOp::kRemove, ".sfa.tmp.", 0, 0, /*probability=*/0.5});
    auto out = std::make_unique<Outcome>();
    Cache cache(dir_, &FakeRegistry(), &env);
    ExecOptions options;
    options.threads = 4;
    ::testing::internal::CaptureStderr();
    out->result = Execute(dag_, cache, out->memo, &env, options);
    out->err = ::testing::internal::GetCapturedStderr();
    ExpectRightResults(dag_, *out);
    ExpectOnlyRightEntries(/*temps_allowed=*/true);
    EXPECT_TRUE(LockFiles().empty()) << LockFiles().front();
    temps_left += BackdateTemps();
    ASSERT_OK(Cache(dir_, &FakeRegistry(), Env::Default()).Gc(365));

    env.Clear();
    std::unique_ptr<Outcome> again = Run(dag_, &env);
    ExpectRightResults(dag_, *again);
    EXPECT_LT(again->result.seconds, 10.0);
    EXPECT_EQ(ExpectOnlyRightEntries(), static_cast<int>(dag_.nodes.size()));
  }
  EXPECT_GT(temps_left, 0) << "no temp file was ever left: the gc path went untested";
  RecordProperty("temp_files_left", temps_left);
}

// The run history `seqflow plan` reads: a failed rewrite leaves the previous one whole.
TEST_F(DiskFaultsTest, AFailedRunHistoryStoreKeepsThePreviousOne) {
  RunHistory before, after;
  before.nodes["a"] = {std::string(32, 'a'), {{"kind", "const@1"}}};
  after.nodes["a"] = {std::string(32, 'b'), {{"kind", "const@2"}}};
  const std::string run_id = "0123456789abcdef";
  for (FileOp op : {FileOp::kCreate, FileOp::kWrite, FileOp::kSync, FileOp::kRename}) {
    for (int error : {ENOSPC, EIO}) {
      SCOPED_TRACE(std::string(FileOpName(op)) + " fails with " + std::strerror(error));
      Reset();
      FaultEnv env;
      Cache cache(dir_, &FakeRegistry(), &env);
      ASSERT_OK(cache.StoreRunHistory(run_id, before));
      env.Inject(Fault{op, ".sfr", 1, error});
      Status stored = cache.StoreRunHistory(run_id, after);
      ASSERT_FALSE(stored.ok());
      EXPECT_NE(stored.message().find(dir_ + "/runs/" + run_id + ".sfr"), std::string::npos) << stored.ToString();
      EXPECT_NE(stored.message().find(std::strerror(error)), std::string::npos) << stored.ToString();
      auto loaded = cache.LoadRunHistory(run_id);
      ASSERT_OK(loaded);
      ASSERT_TRUE(loaded->has_value());
      EXPECT_EQ(**loaded, before);
      EXPECT_EQ(fs::directory_iterator(dir_ + "/runs")->path().filename(), run_id + ".sfr");
      EXPECT_EQ(std::distance(fs::directory_iterator(dir_ + "/runs"), fs::directory_iterator()), 1);
    }
  }
}

}  // namespace disk_faults_test
}  // namespace seqflow::testkit

// RunSweep against an in-process TaskExecutor that computes each task the way `seqflow run-node`
// does (its node from inputs in the cache, then a status record), with faults injected: tasks
// that fail, tasks killed without a record, an interrupt.
#include "engine/exec/sweep.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <set>

#include "engine/exec/executor.h"
#include "engine/exec/task_status.h"
#include "tests/engine/exec/executor_fixture.h"

namespace seqflow::testkit {
namespace sweep_test {

class InProcessExecutor final : public TaskExecutor {
 public:
  InProcessExecutor(const std::vector<const Dag*>& runs, Cache& cache) : cache_(cache) {
    for (const Dag* dag : runs)
      for (size_t i = 0; i < dag->nodes.size(); ++i) where_.try_emplace(dag->nodes[i].key, dag, static_cast<int>(i));
  }

  Result<std::vector<std::string>> Submit(const std::vector<Task>& tasks) override {
    std::vector<std::string> handles;
    for (const Task& task : tasks) {
      std::string handle = std::to_string(waves_.size()) + "_" + std::to_string(handles.size());
      handles.push_back(handle);
      queued_[handle] = task.key;
      submitted_keys.push_back(task.key);
      threads_of[task.key] = task.threads;
      memory_of[task.key] = task.memory_mb;
    }
    waves_.push_back(tasks.size());
    return handles;
  }

  // Queued tasks start running on one poll and end (computed) on the next, as a scheduler's would.
  Result<std::map<std::string, TaskState>> Poll() override {
    ++polls;
    if (interrupt_at_poll == polls && interrupt != nullptr) *interrupt = true;
    std::map<std::string, TaskState> states;
    for (auto& [handle, key] : running_) {
      RunTask(handle, key);
      states[handle] = TaskState::kEnded;
    }
    running_.clear();
    for (auto& [handle, key] : queued_) {
      states[handle] = TaskState::kRunning;
      running_[handle] = key;
    }
    queued_.clear();
    return states;
  }

  Status Cancel() override {
    cancelled += static_cast<int>(queued_.size() + running_.size());
    queued_.clear();
    running_.clear();
    return Status::Ok();
  }

  std::string Diagnostics(const std::string& handle) override { return "fake job " + handle + ", stderr: boom"; }

  std::map<std::string, int> kill_times;  // key -> attempts ended with no record and no entry
  std::vector<std::string> submitted_keys;
  std::map<std::string, int> threads_of, memory_of;
  int polls = 0, cancelled = 0;
  int interrupt_at_poll = -1;
  std::atomic<bool>* interrupt = nullptr;

 private:
  void RunTask(const std::string& handle, const std::string& key) {
    if (kill_times[key] > 0) {
      --kill_times[key];
      return;
    }
    auto [dag, index] = where_.at(key);
    ArtifactMemo memo;
    ExecOptions options;
    options.threads = 1;
    options.may_compute = [&key](const DagNode& node) {
      return node.key == key ? Status::Ok() : Status::NotFound("input not published");
    };
    RunResult result = Execute(NodeWithInputs(*dag, index), cache_, memo, Env::Default(), options);
    TaskStatus record;
    record.exit_code = result.ok() ? 0 : 1;
    record.reason = result.ok() ? "" : result.FirstError().ToString();
    record.job = handle;
    ASSERT_OK(WriteTaskStatus(Env::Default(), cache_.dir(), key, record));
  }

  Cache& cache_;
  std::map<std::string, std::pair<const Dag*, int>> where_;
  std::vector<size_t> waves_;
  std::map<std::string, std::string> queued_, running_;
};

class SweepTest : public ExecutorTest {
 protected:
  SweepTest() {
    options_.poll_seconds = 0.001;
    options_.reread_seconds = 0;
  }

  Result<SweepResult> Sweep(const std::vector<const Dag*>& runs, InProcessExecutor& executor) {
    return RunSweep(runs, cache_, executor, options_);
  }
  // The local run that follows a sweep: computes nothing, loads everything.
  RunResult Assemble(const Dag& dag, const SweepResult& swept) {
    ArtifactMemo memo;
    ExecOptions options;
    options.may_compute = [&swept](const DagNode& node) {
      auto found = swept.failed.find(node.key);
      return found != swept.failed.end() ? found->second : Status::NotFound("not swept");
    };
    return Execute(dag, cache_, memo, Env::Default(), options);
  }

  SweepOptions options_;
};

TEST_F(SweepTest, ComputesEveryInstanceOnceInWavesAndTheRunThenLoadsThemAll) {
  Dag dag = DemoDag(0);
  InProcessExecutor executor({&dag}, cache_);
  std::vector<SweepProgress> progress;
  options_.on_progress = [&](const SweepProgress& p) { progress.push_back(p); };
  SweepResult swept = ValueOrThrow(Sweep({&dag}, executor));
  EXPECT_EQ(swept.computed, static_cast<int>(dag.nodes.size()));
  EXPECT_EQ(swept.submitted, static_cast<int>(dag.nodes.size()));
  EXPECT_TRUE(swept.failed.empty());
  // DemoDag's longest chain: a -> ab -> abc -> all -> s1 (five waves).
  EXPECT_EQ(swept.waves, 5);
  ASSERT_FALSE(progress.empty());
  int done = 0;
  for (const WaveCounts& wave : progress.back().waves) done += wave.done;
  EXPECT_EQ(done, static_cast<int>(dag.nodes.size()));

  RunResult run = Assemble(dag, swept);
  ASSERT_TRUE(run.ok()) << run.FirstError().ToString();
  for (const NodeOutcome& node : run.nodes) EXPECT_EQ(node.status, NodeStatus::kCached) << node.name;

  // The same bytes as a local run computes.
  std::map<std::string, std::string> swept_bytes;
  for (const DagNode& node : dag.nodes) swept_bytes[node.name] = Bytes(node.key);
  std::filesystem::remove_all(dir_);
  ASSERT_TRUE(Run(dag).ok());
  for (const DagNode& node : dag.nodes) EXPECT_EQ(Bytes(node.key), swept_bytes[node.name]) << node.name;
}

TEST_F(SweepTest, InstancesAreDeduplicatedAcrossRunsAndCachedOnesAreNeverSubmitted) {
  DagBuilder a, b;
  a.Add("x", "const", {{"value", 1.0}}).Add("y", "sum", {{"offset", 1.0}}, {{"in", {"x"}}});
  b.Add("x", "const", {{"value", 1.0}}).Add("y", "sum", {{"offset", 2.0}}, {{"in", {"x"}}});
  DagBuilder first;
  first.Add("x", "const", {{"value", 1.0}});
  ASSERT_TRUE(Run(first.dag()).ok());  // x is cached
  InProcessExecutor executor({&a.dag(), &b.dag()}, cache_);
  SweepResult swept = ValueOrThrow(Sweep({&a.dag(), &b.dag()}, executor));
  EXPECT_EQ(swept.cached, 1);
  EXPECT_EQ(swept.computed, 2);
  std::set<std::string> keys(executor.submitted_keys.begin(), executor.submitted_keys.end());
  EXPECT_EQ(keys, (std::set<std::string>{a.dag().nodes[1].key, b.dag().nodes[1].key}));
  EXPECT_EQ(executor.submitted_keys.size(), 2u);
}

TEST_F(SweepTest, AFailedTaskIsReportedWithItsReasonAndDiagnosticsAndItsDescendantsAreSkipped) {
  DagBuilder b;
  b.Add("good", "const", {{"value", 1.0}})
      .Add("bad", "fail", {{"how", std::string("status")}})
      .Add("after_bad", "sum", {}, {{"in", {"bad"}}})
      .Add("after_good", "sum", {}, {{"in", {"good"}}});
  InProcessExecutor executor({&b.dag()}, cache_);
  SweepResult swept = ValueOrThrow(Sweep({&b.dag()}, executor));
  EXPECT_EQ(swept.computed, 2);
  ASSERT_EQ(swept.failed.size(), 2u);
  const Status& bad = swept.failed.at(b.dag().nodes[1].key);
  EXPECT_NE(bad.message().find("node 'bad' (fail) failed in task 0_1"), std::string::npos) << bad.message();
  EXPECT_NE(bad.message().find("fake job 0_1, stderr: boom"), std::string::npos) << bad.message();
  const Status& skipped = swept.failed.at(b.dag().nodes[2].key);
  EXPECT_EQ(skipped.code(), StatusCode::kCancelled);
  EXPECT_NE(skipped.message().find("node 'bad'"), std::string::npos) << skipped.message();

  RunResult run = Assemble(b.dag(), swept);
  std::map<std::string, NodeStatus> statuses = Statuses(run);
  EXPECT_EQ(statuses["good"], NodeStatus::kCached);
  EXPECT_EQ(statuses["after_good"], NodeStatus::kCached);
  EXPECT_EQ(statuses["bad"], NodeStatus::kFailed);
  EXPECT_EQ(statuses["after_bad"], NodeStatus::kSkipped);
}

TEST_F(SweepTest, ATaskKilledWithoutARecordIsResubmittedWithinItsRetries) {
  DagBuilder b;
  b.Add("x", "const", {{"value", 1.0}}).Add("y", "sum", {}, {{"in", {"x"}}});
  const std::string x = b.dag().nodes[0].key;
  {
    InProcessExecutor executor({&b.dag()}, cache_);
    executor.kill_times[x] = 1;
    SweepResult swept = ValueOrThrow(Sweep({&b.dag()}, executor));
    ASSERT_EQ(swept.failed.size(), 2u) << "no retries: x fails, y is skipped";
    EXPECT_NE(swept.failed.at(x).message().find("without a status record"), std::string::npos)
        << swept.failed.at(x).message();
  }
  InProcessExecutor executor({&b.dag()}, cache_);
  executor.kill_times[x] = 1;
  options_.retries = 1;
  SweepResult swept = ValueOrThrow(Sweep({&b.dag()}, executor));
  EXPECT_TRUE(swept.failed.empty());
  EXPECT_EQ(swept.submitted, 3);
  EXPECT_EQ(swept.computed, 2);
}

TEST_F(SweepTest, AnInterruptCancelsWhatWasSubmittedAndKeepsWhatWasPublished) {
  Dag dag = DemoDag(0);
  InProcessExecutor executor({&dag}, cache_);
  std::atomic<bool> interrupt{false};
  executor.interrupt = &interrupt;
  executor.interrupt_at_poll = 3;  // the first wave has ended, the second is running
  options_.interrupted = &interrupt;
  Result<SweepResult> swept = Sweep({&dag}, executor);
  ASSERT_FALSE(swept.ok());
  EXPECT_EQ(swept.status().code(), StatusCode::kCancelled);
  EXPECT_GT(executor.cancelled, 0);
  EXPECT_TRUE(cache_.Contains(dag.nodes[0].key)) << "the first wave's entries stay";

  interrupt = false;
  executor.interrupt = nullptr;
  InProcessExecutor again({&dag}, cache_);
  SweepResult resumed = ValueOrThrow(Sweep({&dag}, again));
  EXPECT_GT(resumed.cached, 0);
  EXPECT_EQ(resumed.cached + resumed.computed, static_cast<int>(dag.nodes.size()));
}

TEST_F(SweepTest, TasksAskWhatTheirKindDeclares) {
  DagBuilder b;
  b.Add("x", "const", {{"value", 1.0}}).Add("nap", "sleep", {{"ms", 1.0}});
  options_.task_threads = 3;
  InProcessExecutor executor({&b.dag()}, cache_);
  ValueOrThrow(Sweep({&b.dag()}, executor));
  EXPECT_EQ(executor.threads_of.at(b.dag().nodes[0].key), 1);
  EXPECT_EQ(executor.threads_of.at(b.dag().nodes[1].key), 3);
  EXPECT_EQ(executor.memory_of.at(b.dag().nodes[0].key), 1024);
  EXPECT_EQ(executor.memory_of.at(b.dag().nodes[1].key), 64);
}

}  // namespace sweep_test
}  // namespace seqflow::testkit

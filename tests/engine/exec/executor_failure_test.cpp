// Failures, cancellation, corrupt entries, events and parallelism of the executor.
#include <gtest/gtest.h>

#include <fstream>
#include <limits>

#include "tests/engine/exec/executor_fixture.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::testkit {
namespace executor_failure_test {

// bad fails; child and grandchild depend on it; ok1/ok2 do not.
Dag FailingDag(const std::string& how) {
  DagBuilder b;
  b.Add("ok1", "const", {{"value", 1.0}})
      .Add("bad", "fail", {{"how", how}}, {{"in", {"ok1"}}})
      .Add("child", "sum", {}, {{"in", {"bad", "ok1"}}})
      .Add("grandchild", "sum", {}, {{"in", {"child"}}})
      .Add("ok2", "const", {{"value", 2.0}});
  return b.dag();
}

TEST_F(ExecutorTest, FailureNamesTheNodeSkipsDescendantsAndCachesNothing) {
  Dag dag = FailingDag("status");
  RunResult r = Run(dag);
  EXPECT_FALSE(r.ok());
  const NodeOutcome& bad = Outcome(r, "bad");
  EXPECT_EQ(bad.status, NodeStatus::kFailed);
  EXPECT_EQ(bad.error.code(), StatusCode::kInvalid);
  EXPECT_EQ(bad.error.message(), "node 'bad' (fail): boom");
  EXPECT_EQ(r.FirstError().message(), bad.error.message());
  EXPECT_EQ(Outcome(r, "child").status, NodeStatus::kSkipped);
  EXPECT_EQ(Outcome(r, "grandchild").status, NodeStatus::kSkipped);
  EXPECT_EQ(Outcome(r, "ok1").status, NodeStatus::kComputed);
  for (const char* name : {"bad", "child", "grandchild"}) EXPECT_FALSE(cache_.Contains(Outcome(r, name).key)) << name;
}

TEST_F(ExecutorTest, ExceptionsBecomeInternalErrors) {
  RunResult thrown = Run(FailingDag("exception"));
  EXPECT_EQ(Outcome(thrown, "bad").error.code(), StatusCode::kInternal);
  EXPECT_EQ(Outcome(thrown, "bad").error.message(), "node 'bad' (fail): exception: bad thing");
  RunResult other = Run(FailingDag("int"));
  EXPECT_EQ(Outcome(other, "bad").error.code(), StatusCode::kInternal);
  EXPECT_EQ(Outcome(other, "bad").error.message(), "node 'bad' (fail): unknown exception");
  EXPECT_EQ(Outcome(other, "grandchild").status, NodeStatus::kSkipped);
}

TEST_F(ExecutorTest, NanMetricFailsTheNodeAndIsNotCached) {
  DagBuilder b;
  b.Add("n", "nan").Add("after", "sum", {}, {{"in", {"n"}}});
  RunResult r = Run(b.dag());
  const NodeOutcome& n = Outcome(r, "n");
  EXPECT_EQ(n.status, NodeStatus::kFailed);
  EXPECT_EQ(n.error.code(), StatusCode::kNumerical);
  EXPECT_NE(n.error.message().find("node 'n' (nan): metric 'loss' is NaN"), std::string::npos) << n.error.message();
  EXPECT_FALSE(cache_.Contains(n.key));
  EXPECT_EQ(Outcome(r, "after").status, NodeStatus::kSkipped);
}

TEST_F(ExecutorTest, NanInAMetricsOutputFailsTheNode) {
  DagBuilder b;
  b.Add("x", "const", {{"value", 1.0}})
      .Add("s", "score", {{"scale", std::numeric_limits<double>::quiet_NaN()}}, {{"in", {"x"}}});
  RunResult r = Run(b.dag());
  EXPECT_EQ(Outcome(r, "s").error.code(), StatusCode::kNumerical);
  EXPECT_FALSE(cache_.Contains(Outcome(r, "s").key));
}

TEST_F(ExecutorTest, WrongOutputTypeFailsTheNode) {
  DagBuilder b;
  b.Add("w", "wrong");
  RunResult r = Run(b.dag());
  EXPECT_EQ(Outcome(r, "w").status, NodeStatus::kFailed);
  EXPECT_EQ(Outcome(r, "w").error.message(), "node 'w' (wrong): returned a Metrics, its kind declares TestValue");
}

TEST_F(ExecutorTest, TruncatedEntryIsReportedAndRecomputed) {
  Dag dag = DemoDag();
  ASSERT_TRUE(Run(dag).ok());
  const std::string key = dag.nodes[4].key;  // "bc"
  std::string path = dir_ + "/" + key.substr(0, 2) + "/" + key + ".sfa";
  std::string bytes = ValueOrThrow(Env::Default()->ReadFile(path));
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes.substr(0, bytes.size() / 2);
  auto damaged = cache_.Load(key);
  ASSERT_FALSE(damaged.ok());
  EXPECT_EQ(damaged.status().code(), StatusCode::kCorruption);

  RunResult r = Run(dag);
  ASSERT_TRUE(r.ok()) << r.FirstError().ToString();
  for (const NodeOutcome& n : r.nodes)
    EXPECT_EQ(n.status, n.name == "bc" ? NodeStatus::kComputed : NodeStatus::kCached) << n.name;
  ASSERT_OK(cache_.Load(key));
  EXPECT_EQ(ValueOrThrow(Env::Default()->ReadFile(path)).size(), bytes.size());
}

TEST_F(ExecutorTest, AnUnwritableCacheOnlyCostsReuse) {
  Cache unwritable("/dev/null/cache", &FakeRegistry(), Env::Default());
  ArtifactMemo memo;
  ExecOptions options;
  RunResult r = Execute(DemoDag(), unwritable, memo, Env::Default(), options);
  ASSERT_TRUE(r.ok()) << r.FirstError().ToString();
  for (const NodeOutcome& n : r.nodes) EXPECT_EQ(n.status, NodeStatus::kComputed) << n.name;
}

// Each node waits for the other to start: run one after the other, the first gives up after 10 s.
// (`id` gives them two keys: of two nodes with one key, one computes and the other takes its result.)
TEST_F(ExecutorTest, IndependentNodesRunAtTheSameTime) {
  DagBuilder b;
  b.Add("a", "meet", {{"parties", 2.0}, {"id", 1.0}}).Add("b", "meet", {{"parties", 2.0}, {"id", 2.0}});
  RunResult r = Run(b.dag(), 2);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Outcome(r, "a").metrics.at("met"), 1);
  EXPECT_EQ(Outcome(r, "b").metrics.at("met"), 1);
}

// Collects events; the executor serialises them, so no lock is needed.
struct EventLog {
  std::map<std::string, int> starts, finishes, progress;
  ExecOptions Options(int threads) {
    ExecOptions options;
    options.threads = threads;
    options.on_event = [this](const ExecEvent& e) {
      if (e.type == ExecEvent::kStart) ++starts[e.node];
      if (e.type == ExecEvent::kProgress) ++progress[e.node];
      if (e.type == ExecEvent::kFinish) {
        ++finishes[e.node];
        EXPECT_EQ(e.outcome->name, e.node);
      }
    };
    return options;
  }
};

TEST_F(ExecutorTest, EventsReportEveryStartFinishAndProgress) {
  EventLog log;
  ArtifactMemo memo;
  Dag dag = DemoDag(1);
  ASSERT_TRUE(Execute(dag, cache_, memo, Env::Default(), log.Options(4)).ok());
  for (const DagNode& n : dag.nodes) {
    EXPECT_EQ(log.starts[n.name], 1) << n.name;
    EXPECT_EQ(log.finishes[n.name], 1) << n.name;
  }
  EXPECT_EQ(log.progress["nap1"], 2);
  EXPECT_EQ(log.progress["nap2"], 2);
}

TEST_F(ExecutorTest, SkippedNodesFinishWithoutStarting) {
  EventLog log;
  ArtifactMemo memo;
  Dag dag = FailingDag("status");
  EXPECT_FALSE(Execute(dag, cache_, memo, Env::Default(), log.Options(1)).ok());
  for (const DagNode& n : dag.nodes) EXPECT_EQ(log.finishes[n.name], 1) << n.name;
  EXPECT_EQ(log.starts["bad"], 1);
  EXPECT_EQ(log.starts["child"], 0);
}

TEST(RunResultTest, FirstErrorPrefersTheCauseOverCancellations) {
  RunResult r;
  r.nodes.resize(3);
  r.nodes[0].status = NodeStatus::kComputed;
  r.nodes[1].status = NodeStatus::kFailed;
  r.nodes[1].error = Status::Cancelled("stopped: run cancelled");
  r.nodes[2].status = NodeStatus::kFailed;
  r.nodes[2].error = Status::Numerical("diverged");
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.FirstError().message(), "diverged");
  r.nodes[2].status = NodeStatus::kSkipped;
  EXPECT_EQ(r.FirstError().code(), StatusCode::kCancelled);
  r.nodes.resize(1);
  EXPECT_TRUE(r.ok());
  EXPECT_OK(r.FirstError());
}

TEST(NodeStatusNameTest, NamesAsInSummaryJson) {
  EXPECT_STREQ(NodeStatusName(NodeStatus::kComputed), "computed");
  EXPECT_STREQ(NodeStatusName(NodeStatus::kCached), "cached");
  EXPECT_STREQ(NodeStatusName(NodeStatus::kFailed), "failed");
  EXPECT_STREQ(NodeStatusName(NodeStatus::kSkipped), "skipped");
}

}  // namespace executor_failure_test
}  // namespace seqflow::testkit

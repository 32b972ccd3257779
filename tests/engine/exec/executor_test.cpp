#include <gtest/gtest.h>

#include "tests/engine/exec/executor_fixture.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::testkit {
namespace executor_test {

TEST_F(ExecutorTest, ComputesInDagOrderWithMetrics) {
  Dag dag = DemoDag();
  RunResult r = Run(dag);
  ASSERT_OK(r.FirstError());
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.nodes.size(), dag.nodes.size());
  for (size_t i = 0; i < dag.nodes.size(); ++i) {
    EXPECT_EQ(r.nodes[i].name, dag.nodes[i].name);
    EXPECT_EQ(r.nodes[i].key, dag.nodes[i].key);
    EXPECT_EQ(r.nodes[i].status, NodeStatus::kComputed) << r.nodes[i].name;
  }
  EXPECT_EQ(Outcome(r, "abc").metrics.at("count"), 3.0);
  // s1 = 3 * all; the Metrics output is merged into the outcome's metrics.
  auto all = cache_.Load(dag.nodes[8].key);
  ASSERT_OK(all);
  double all_number = static_cast<const TestValue&>(*(*all)->artifact).number;
  EXPECT_EQ(Outcome(r, "s1").metrics.at("score"), 3.0 * all_number);
  auto p1 = cache_.Load(dag.nodes[6].key);
  EXPECT_EQ(static_cast<const TestValue&>(*(*p1)->artifact).text, "a+b|b+cee");
}

TEST_F(ExecutorTest, OneTwoAndFourThreadsGiveIdenticalResults) {
  Dag dag = DemoDag();
  std::vector<std::string> reference;
  std::vector<std::map<std::string, double>> reference_metrics;
  for (int threads : {1, 2, 4}) {
    std::filesystem::remove_all(dir_);
    RunResult r = Run(dag, threads);
    ASSERT_TRUE(r.ok()) << threads << ": " << r.FirstError().ToString();
    std::vector<std::string> bytes;
    std::vector<std::map<std::string, double>> metrics;
    for (const NodeOutcome& n : r.nodes) {
      EXPECT_EQ(n.status, NodeStatus::kComputed);
      bytes.push_back(Bytes(n.key));
      metrics.push_back(n.metrics);
    }
    if (reference.empty()) {
      reference = bytes;
      reference_metrics = metrics;
    }
    EXPECT_EQ(bytes, reference) << "threads = " << threads;
    EXPECT_EQ(metrics, reference_metrics) << "threads = " << threads;
  }
}

TEST_F(ExecutorTest, RerunComputesNothing) {
  Dag dag = DemoDag();
  RunResult first = Run(dag);
  ASSERT_TRUE(first.ok());
  RunResult second = Run(dag);
  ASSERT_TRUE(second.ok());
  for (size_t i = 0; i < dag.nodes.size(); ++i) {
    EXPECT_EQ(second.nodes[i].status, NodeStatus::kCached) << second.nodes[i].name;
    EXPECT_EQ(second.nodes[i].metrics, first.nodes[i].metrics) << second.nodes[i].name;
  }
}

TEST_F(ExecutorTest, MemoServesAReuseWithoutTheCacheDirectory) {
  Dag dag = DemoDag();
  ArtifactMemo memo;
  RunResult first = RunWithMemo(dag, memo);
  ASSERT_TRUE(first.ok());
  std::filesystem::remove_all(dir_);
  RunResult second = RunWithMemo(dag, memo);
  ASSERT_TRUE(second.ok());
  for (size_t i = 0; i < dag.nodes.size(); ++i) {
    EXPECT_EQ(second.nodes[i].status, NodeStatus::kCached) << second.nodes[i].name;
    EXPECT_EQ(second.nodes[i].metrics, first.nodes[i].metrics) << second.nodes[i].name;
    EXPECT_NE(memo.Find(dag.nodes[i].key), nullptr);
  }
  EXPECT_FALSE(std::filesystem::exists(dir_));
}

TEST_F(ExecutorTest, ChangingOneKeyRecomputesExactlyItAndItsDescendants) {
  ASSERT_TRUE(Run(DemoDag()).ok());
  DagBuilder b;
  b.Add("a", "const", {{"value", 1.5}})
      .Add("b", "const", {{"value", 2.25}})
      .Add("c", "const", {{"value", -0.125}, {"text", std::string("cee")}})
      .Add("ab", "sum", {{"offset", 0.1}}, {{"in", {"a", "b"}}})
      .Add("bc", "sum", {{"offset", 99.0}}, {{"in", {"b", "c"}}})  // changed
      .Add("abc", "sum", {{"offset", 1e-17}}, {{"in", {"ab", "bc", "c"}}})
      .Add("p1", "pair", {}, {{"left", {"ab"}}, {"right", {"bc"}}})
      .Add("p2", "pair", {}, {{"left", {"bc"}}, {"right", {"ab"}}})
      .Add("all", "sum", {}, {{"in", {"p1", "p2", "abc"}}})
      .Add("s1", "score", {{"scale", 3.0}}, {{"in", {"all"}}})
      .Add("s2", "score", {}, {{"in", {"p2"}}})
      .Add("tail", "sum", {{"offset", 7.0}}, {{"in", {"all", "abc"}}});
  RunResult r = Run(b.dag());
  ASSERT_TRUE(r.ok());
  const auto kC = NodeStatus::kComputed, kK = NodeStatus::kCached;
  std::map<std::string, NodeStatus> expected = {{"a", kK},   {"b", kK},   {"c", kK},  {"ab", kK},
                                                {"bc", kC},  {"abc", kC}, {"p1", kC}, {"p2", kC},
                                                {"all", kC}, {"s1", kC},  {"s2", kC}, {"tail", kC}};
  EXPECT_EQ(Statuses(r), expected);
}

TEST_F(ExecutorTest, ForceRecomputesTheNodeAndItsDescendants) {
  Dag dag = DemoDag();
  ASSERT_TRUE(Run(dag).ok());
  RunResult r = Run(dag, 2, {"p2"});
  ASSERT_TRUE(r.ok());
  for (const NodeOutcome& n : r.nodes) {
    bool downstream = n.name == "p2" || n.name == "all" || n.name == "s1" || n.name == "s2" || n.name == "tail";
    EXPECT_EQ(n.status, downstream ? NodeStatus::kComputed : NodeStatus::kCached) << n.name;
  }
}

}  // namespace executor_test
}  // namespace seqflow::testkit

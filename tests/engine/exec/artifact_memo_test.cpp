// ArtifactMemo's lifetime: built from an invocation's runs, it holds an artifact only while a
// node not yet finished uses it, and a run lets go of an input once its last consumer finished;
// none of this changes a result.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tests/engine/exec/executor_fixture.h"

namespace seqflow::testkit {
namespace artifact_memo_test {

// An ablation run: the common prefix a -> b, then tail = b + c_offset and score = tail * scale.
Dag AblationRun(double c_offset, double scale) {
  DagBuilder b;
  b.Add("a", "const", {{"value", 1.5}})
      .Add("b", "sum", {{"offset", 1.0}}, {{"in", {"a"}}})
      .Add("tail", "sum", {{"offset", c_offset}}, {{"in", {"b"}}})
      .Add("score", "score", {{"scale", scale}}, {{"in", {"tail"}}});
  return b.dag();
}

// Runs 2 and 3 share their tail (the same key in two runs); only their scores differ.
std::vector<Dag> Grid() { return {AblationRun(1, 1), AblationRun(2, 1), AblationRun(2, 3)}; }

std::vector<const Dag*> Pointers(const std::vector<Dag>& dags) {
  std::vector<const Dag*> out;
  for (const Dag& d : dags) out.push_back(&d);
  return out;
}

TEST(ArtifactMemoTest, KeysUsedByAreTheNodesOwnAndItsInputsOnce) {
  DagBuilder b;
  b.Add("a", "const").Add("twice", "sum", {}, {{"in", {"a", "a"}}});
  std::vector<std::string> keys = KeysUsedBy(b.dag(), 1);
  std::vector<std::string> expected = {b.dag().nodes[0].key, b.dag().nodes[1].key};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(keys, expected);
}

TEST(ArtifactMemoTest, DefaultMemoKeepsEverything) {
  Dag dag = AblationRun(1, 1);
  ArtifactMemo memo;
  memo.Put("k", std::make_shared<TestValue>("v", 1));
  for (int i = 0; i < 4; ++i) memo.Release(dag, i);
  EXPECT_EQ(memo.size(), 1u);
}

TEST(ArtifactMemoTest, CountingMemoKeepsOnlyKeysItWillServe) {
  Dag dag = AblationRun(1, 1);
  ArtifactMemo memo({&dag});
  memo.Put("not in any run", std::make_shared<TestValue>("v", 1));
  EXPECT_EQ(memo.size(), 0u);
}

TEST_F(ExecutorTest, MemoHoldsOnlyWhatRemainingRunsUse) {
  std::vector<Dag> runs = Grid();
  ArtifactMemo memo(Pointers(runs));
  // What the memo holds after each run: the prefix while runs remain, and run 2's tail for run 3.
  const std::vector<std::vector<std::string>> held = {{"a", "b"}, {"a", "b", "tail"}, {}};
  std::vector<RunResult> results;
  for (size_t r = 0; r < runs.size(); ++r) {
    results.push_back(RunWithMemo(runs[r], memo));
    ASSERT_TRUE(results.back().ok()) << results.back().FirstError().ToString();
    std::filesystem::remove_all(dir_);  // a reuse in the next run can only come from the memo
    EXPECT_EQ(memo.size(), held[r].size()) << "after run " << r + 1;
    for (const DagNode& n : runs[r].nodes) {
      bool kept = std::find(held[r].begin(), held[r].end(), n.name) != held[r].end();
      EXPECT_EQ(memo.Find(n.key) != nullptr, kept) << "after run " << r + 1 << ": " << n.name;
    }
  }
  const auto kC = NodeStatus::kComputed, kK = NodeStatus::kCached;
  using Expected = std::map<std::string, NodeStatus>;
  EXPECT_EQ(Statuses(results[1]), (Expected{{"a", kK}, {"b", kK}, {"tail", kC}, {"score", kC}}));
  EXPECT_EQ(Statuses(results[2]), (Expected{{"a", kK}, {"b", kK}, {"tail", kK}, {"score", kC}}));

  // The same runs with a memo that keeps everything report the same figures.
  ArtifactMemo keep_all;
  for (size_t r = 0; r < runs.size(); ++r) {
    RunResult reference = RunWithMemo(runs[r], keep_all);
    ASSERT_TRUE(reference.ok());
    EXPECT_EQ(Statuses(reference), Statuses(results[r])) << "run " << r + 1;
    for (size_t i = 0; i < reference.nodes.size(); ++i)
      EXPECT_EQ(reference.nodes[i].metrics, results[r].nodes[i].metrics) << "run " << r + 1;
  }
  EXPECT_EQ(Outcome(results[2], "score").metrics.at("score"), 3 * (1.5 + 1 + 2));
  EXPECT_EQ(keep_all.size(), 7u);  // a, b, two tails, three scores
}

// Runs a -> b -> c, every node loaded from the cache (so no background store holds a result),
// and tells whether a's artifact was freed by the time b finished and b's by the time c did.
std::vector<bool> FreedWhenTheLastConsumerFinished(const Dag& dag, Cache& cache, ArtifactMemo& memo) {
  std::map<std::string, std::weak_ptr<const Artifact>> seen;
  std::vector<bool> freed;
  ExecOptions options;
  options.threads = 1;
  options.on_event = [&](const ExecEvent& e) {
    if (e.type != ExecEvent::kFinish) return;
    seen[e.node] = memo.Find(e.outcome->key);
    if (e.node == "b") freed.push_back(seen["a"].expired());
    if (e.node == "c") freed.push_back(seen["b"].expired());
  };
  EXPECT_TRUE(Execute(dag, cache, memo, Env::Default(), options).ok());
  return freed;
}

TEST_F(ExecutorTest, ARunLetsGoOfAnInputOnceItsLastConsumerFinished) {
  DagBuilder b;
  b.Add("a", "const").Add("b", "sum", {}, {{"in", {"a"}}}).Add("c", "sum", {}, {{"in", {"b"}}});
  const Dag& dag = b.dag();
  ASSERT_TRUE(Run(dag).ok());
  ArtifactMemo counting({&dag});
  EXPECT_EQ(FreedWhenTheLastConsumerFinished(dag, cache_, counting), (std::vector<bool>{true, true}));
  EXPECT_EQ(counting.size(), 0u);
  ArtifactMemo keep_all;
  EXPECT_EQ(FreedWhenTheLastConsumerFinished(dag, cache_, keep_all), (std::vector<bool>{false, false}));
}

TEST_F(ExecutorTest, FailedAndSkippedNodesSpendTheirUses) {
  DagBuilder b;
  b.Add("ok", "const").Add("bad", "fail", {}, {{"in", {"ok"}}}).Add("child", "sum", {}, {{"in", {"bad", "ok"}}});
  ArtifactMemo memo({&b.dag()});
  EXPECT_FALSE(RunWithMemo(b.dag(), memo).ok());
  EXPECT_EQ(memo.size(), 0u);
}

}  // namespace artifact_memo_test
}  // namespace seqflow::testkit

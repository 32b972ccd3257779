// The local executor's memory budget (engine/exec/memory_budget.h): nodes whose declared memory
// would pass it together never compute at once, a node larger than the whole budget runs alone
// (with a log line), a node's time leaves out its wait, and the results do not depend on the
// budget.
#include "engine/exec/memory_budget.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/engine/exec/executor_fixture.h"

namespace seqflow::testkit {
namespace memory_budget_test {

TEST(MemoryBudget, GrantsWhatFitsWaitingOnesInArrivalOrder) {
  MemoryBudget budget(100);
  EXPECT_EQ(budget.Share(150), 100);  // larger than the budget: all of it
  EXPECT_EQ(budget.Share(40), 40);
  ASSERT_TRUE(budget.TryAcquire(60));
  bool b = false, c = false, d = false, e = false;
  budget.Acquire(60, [&] { b = true; });  // does not fit beside 60
  EXPECT_TRUE(budget.TryAcquire(30)) << "fits beside 60: goes ahead of the waiting 60";
  EXPECT_FALSE(budget.TryAcquire(20));
  budget.Acquire(50, [&] { c = true; });
  budget.Acquire(20, [&] { d = true; });
  EXPECT_FALSE(b || c || d) << "nothing fits beside 90";
  budget.Release(30);  // 60 held: only 20 fits, and goes ahead of 60 and 50
  EXPECT_FALSE(b || c);
  EXPECT_TRUE(d);
  budget.Release(60);  // 20 held: 60 fits first, then 50 does not
  EXPECT_TRUE(b);
  EXPECT_FALSE(c);
  EXPECT_EQ(budget.held_mb(), 80);
  budget.Acquire(100, [&] { e = true; });  // a node as large as the budget waits for all to go
  budget.Release(20);
  EXPECT_FALSE(c || e);
  budget.Release(60);
  EXPECT_TRUE(c) << "50 arrived before 100";
  EXPECT_FALSE(e);
  budget.Release(50);
  EXPECT_TRUE(e);
  EXPECT_EQ(budget.held_mb(), 100);
}

class MemoryBudgetExecTest : public ExecutorTest {
 protected:
  // Four heavy and four light nodes side by side, then a huge one after them all.
  static Dag Nodes() {
    DagBuilder b;
    std::vector<std::string> names;
    for (int i = 0; i < 8; ++i) {
      names.push_back((i < 4 ? "heavy" : "light") + std::to_string(i));
      b.Add(names.back(), i < 4 ? "heavy" : "light", {{"ms", 30.0 + i}});
    }
    b.Add("big", "huge", {{"ms", 30.0}}, {{"in", names}});
    b.Add("late", "light", {{"ms", 80.0}}, {{"in", {names.back()}}});  // may start before `big`, never beside it
    return b.dag();
  }
  RunResult RunWithBudget(MemoryBudget* budget, int threads) {
    RunningMemory().peak_mb = 0;
    RunningMemory().huge_overlapped = false;
    ArtifactMemo memo;
    ExecOptions options;
    options.threads = threads;
    options.memory_budget = budget;
    options.force = {"heavy0", "heavy1", "heavy2", "heavy3", "light4", "light5", "light6", "light7", "late", "big"};
    return Execute(Nodes(), cache_, memo, Env::Default(), options);
  }
};

TEST_F(MemoryBudgetExecTest, NodesThatWouldPassTheBudgetNeverRunTogether) {
  for (int threads : {1, 2, 4}) {
    MemoryBudget budget(800);  // one heavy, or two light, at once
    testing::internal::CaptureStderr();
    const RunResult result = RunWithBudget(&budget, threads);
    const std::string log = testing::internal::GetCapturedStderr();
    ASSERT_TRUE(result.ok()) << result.FirstError().ToString();
    EXPECT_LE(RunningMemory().peak_mb, 800) << threads << " threads";
    EXPECT_GE(RunningMemory().peak_mb, kHeavyMb);
    EXPECT_FALSE(RunningMemory().huge_overlapped) << threads << " threads";
    EXPECT_EQ(budget.held_mb(), 0);
    EXPECT_NE(log.find("node 'big' (huge) declares 5000 MB, more than the memory budget of 800 MB: it runs alone"),
              std::string::npos)
        << log;
  }
}

TEST_F(MemoryBudgetExecTest, AWaitForTheBudgetIsNotTheNodesTime) {
  MemoryBudget budget(800);  // the four heavy nodes (30-33 ms each) one after the other
  testing::internal::CaptureStderr();
  const RunResult result = RunWithBudget(&budget, 4);
  testing::internal::GetCapturedStderr();
  ASSERT_TRUE(result.ok()) << result.FirstError().ToString();
  for (const NodeOutcome& node : result.nodes) {
    if (node.name.rfind("heavy", 0) != 0) continue;
    EXPECT_LT(node.seconds, 0.1) << node.name << ": the last one granted waited >= 93 ms for the others";
  }
}

TEST_F(MemoryBudgetExecTest, ResultsDoNotDependOnTheBudget) {
  const RunResult unlimited = RunWithBudget(nullptr, 4);
  std::vector<std::string> unlimited_bytes;
  for (const NodeOutcome& node : unlimited.nodes) unlimited_bytes.push_back(Bytes(node.key));
  MemoryBudget budget(700);
  testing::internal::CaptureStderr();
  const RunResult budgeted = RunWithBudget(&budget, 4);
  testing::internal::GetCapturedStderr();
  ASSERT_TRUE(unlimited.ok() && budgeted.ok());
  EXPECT_LE(RunningMemory().peak_mb, 700);
  ASSERT_EQ(unlimited.nodes.size(), budgeted.nodes.size());
  for (size_t i = 0; i < unlimited.nodes.size(); ++i) {
    EXPECT_EQ(unlimited.nodes[i].key, budgeted.nodes[i].key);
    EXPECT_EQ(budgeted.nodes[i].status, NodeStatus::kComputed) << budgeted.nodes[i].name;
    EXPECT_EQ(Bytes(budgeted.nodes[i].key), unlimited_bytes[i]) << budgeted.nodes[i].name;
  }
}

}  // namespace memory_budget_test
}  // namespace seqflow::testkit

// Continuing on a raised budget (DESIGN §11): a node of a kind with budget parameters keeps the
// state it ended in; a node differing from a cached one in its budget alone (more steps, a
// tighter tolerance) continues from that state and ends with the bits of a run that started over;
// a smaller budget, another parameter or --force starts over; a checkpoint of the same key wins
// over a continuation, and one left beside a published entry is removed; `cache gc` prunes the final states of entries it removed.
#include <filesystem>
#include <limits>

#include "engine/cache/checkpoints.h"
#include "engine/cache/final_states.h"
#include "tests/engine/exec/executor_fixture.h"

namespace seqflow::testkit {
namespace continuation_test {

namespace fs = std::filesystem;

std::map<std::string, ParamValue> Budget(int64_t steps, double tol = 0, double rate = 0.5) {
  return {{"steps", steps}, {"tol", tol}, {"rate", rate}};
}

Dag IterateDag(std::map<std::string, ParamValue> params) {
  DagBuilder b;
  b.Add("it", "iterate", std::move(params)).Add("score", "score", {}, {{"in", {"it"}}});
  return b.dag();
}

class ContinuationTest : public ExecutorTest {
 protected:
  // The node's metric `name` in run `r`.
  static double MetricOf(const RunResult& r, const std::string& name) {
    const NodeOutcome& it = Outcome(r, "it");
    EXPECT_EQ(it.status, NodeStatus::kComputed);
    auto found = it.metrics.find(name);
    return found == it.metrics.end() ? -1 : found->second;
  }
  // The artifact bytes of `dag`'s node "it" computed in a cache of its own from the start.
  static std::string FromScratch(const Dag& dag) {
    const std::string dir = testutil::MakeTempDir("seqflow-continuation");
    Cache fresh(dir, &FakeRegistry(), Env::Default());
    ArtifactMemo memo;
    ExecOptions options;
    RunResult r = Execute(dag, fresh, memo, Env::Default(), options);
    EXPECT_EQ(MetricOf(r, "started_at"), 0);
    auto entry = fresh.Load(dag.nodes[0].key);
    std::string bytes = entry.ok() && entry->has_value() ? BytesOf(*(*entry)->artifact) : "";
    fs::remove_all(dir);
    return bytes;
  }
  int FinalStateFiles() const {
    const fs::path dir = fs::path(dir_) / "final_states";
    return fs::exists(dir) ? static_cast<int>(std::distance(fs::recursive_directory_iterator(dir),
                                                             fs::recursive_directory_iterator()))
                           : 0;
  }
};

TEST_F(ContinuationTest, MoreStepsContinueFromTheCachedResultToTheSameBits) {
  const Dag five = IterateDag(Budget(5)), twelve = IterateDag(Budget(12));
  ASSERT_FALSE(five.nodes[0].family_key.empty());
  ASSERT_EQ(five.nodes[0].family_key, twelve.nodes[0].family_key);
  ASSERT_NE(five.nodes[0].key, twelve.nodes[0].key);
  EXPECT_EQ(MetricOf(Run(five), "started_at"), 0);
  EXPECT_EQ(FinalStateFiles(), 3) << "family folder, state and description";

  const RunResult continued = Run(twelve);
  EXPECT_EQ(MetricOf(continued, "started_at"), 5);
  EXPECT_EQ(MetricOf(continued, "steps"), 12);
  EXPECT_EQ(Bytes(twelve.nodes[0].key), FromScratch(twelve));
  EXPECT_EQ(Outcome(Run(five), "it").status, NodeStatus::kCached) << "the smaller budget's entry stays";
}

TEST_F(ContinuationTest, TheLongestRunWithinTheBudgetIsContinued) {
  Run(IterateDag(Budget(4)));
  Run(IterateDag(Budget(9)));
  Run(IterateDag(Budget(30)));
  EXPECT_EQ(MetricOf(Run(IterateDag(Budget(20))), "started_at"), 9) << "30 steps lie past 20";
}

TEST_F(ContinuationTest, ATighterToleranceContinuesALooserOneDoesNot) {
  const RunResult loose = Run(IterateDag(Budget(100, 1e-2)));
  const double loose_steps = MetricOf(loose, "steps");
  ASSERT_LT(loose_steps, 100);
  const Dag tight = IterateDag(Budget(100, 1e-9));
  const RunResult tighter = Run(tight);
  EXPECT_EQ(MetricOf(tighter, "started_at"), loose_steps);
  EXPECT_GT(MetricOf(tighter, "steps"), loose_steps);
  EXPECT_EQ(Bytes(tight.nodes[0].key), FromScratch(tight));
  EXPECT_EQ(MetricOf(Run(IterateDag(Budget(100, 1e-1))), "started_at"), 0);
}

TEST_F(ContinuationTest, FewerStepsAnotherParameterOrForceStartOver) {
  Run(IterateDag(Budget(8)));
  EXPECT_EQ(MetricOf(Run(IterateDag(Budget(6))), "started_at"), 0);
  EXPECT_EQ(MetricOf(Run(IterateDag(Budget(12, 0, 0.25))), "started_at"), 0) << "another rate";
  EXPECT_EQ(MetricOf(Run(IterateDag(Budget(10)), 2, {"it"}), "started_at"), 0) << "forced";
}

TEST_F(ContinuationTest, ACheckpointOfTheSameKeyComesFirst) {
  Run(IterateDag(Budget(3)));
  const Dag ten = IterateDag(Budget(10));
  Checkpoints checkpoints(dir_, Env::Default());
  ASSERT_OK(checkpoints.Store(ten.nodes[0].key, std::string("7 0x1.fcp+0 0x1p-6")));  // as a killed run saves it
  EXPECT_EQ(MetricOf(Run(ten), "started_at"), 7);
}

TEST_F(ContinuationTest, ACheckpointLeftBesideAPublishedEntryIsRemovedByTheNextRun) {
  const Dag three = IterateDag(Budget(3));
  Run(three);
  Checkpoints checkpoints(dir_, Env::Default());
  StatePieces state;
  state.Append(std::string(2 << 20, 'x'));  // large enough for a piece file of its own
  ASSERT_OK(checkpoints.Store(three.nodes[0].key, std::move(state)));  // as a kill after publishing leaves it
  const fs::path dir = fs::path(dir_) / "checkpoints";
  ASSERT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 2) << "table and piece";
  EXPECT_EQ(Outcome(Run(three), "it").status, NodeStatus::kCached);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 0);
}

TEST_F(ContinuationTest, ADamagedFinalStateIsReportedAndTheNodeStartsOver) {
  const Dag five = IterateDag(Budget(5));
  Run(five);
  FinalStates final_states(dir_, Env::Default());
  const std::string path = final_states.StatePath(five.nodes[0].family_key, five.nodes[0].key);
  ASSERT_OK(Env::Default()->WriteFileAtomic(path, "not a state"));
  EXPECT_EQ(MetricOf(Run(IterateDag(Budget(7))), "started_at"), 0);
}

// A node that failed numerically keeps no state: a rerun (or one on a raised budget) starts over
// instead of continuing from the diverged state.
TEST_F(ContinuationTest, ANodeThatFailedNumericallyLeavesNoStateToContinueFrom) {
  const Dag diverging = IterateDag(Budget(5, 0, std::numeric_limits<double>::infinity()));
  const DagNode& it = diverging.nodes[0];
  RunResult failed = Run(diverging);
  EXPECT_EQ(Outcome(failed, "it").status, NodeStatus::kFailed);
  FinalStates final_states(dir_, Env::Default());
  EXPECT_FALSE(fs::exists(final_states.StatePath(it.family_key, it.key)));
  EXPECT_FALSE(fs::exists(fs::path(dir_) / "checkpoints" / (it.key + ".sfc")));
}

TEST_F(ContinuationTest, GcPrunesTheFinalStatesOfRemovedEntries) {
  Run(IterateDag(Budget(5)));
  Result<GcCounts> kept = cache_.Gc(30);
  ASSERT_OK(kept.status());
  EXPECT_EQ(kept->final_states, 0);
  EXPECT_EQ(FinalStateFiles(), 3);
  Result<GcCounts> removed = cache_.Gc(0);
  ASSERT_OK(removed.status());
  EXPECT_EQ(removed->final_states, 2);
  EXPECT_EQ(FinalStateFiles(), 0);
  EXPECT_EQ(MetricOf(Run(IterateDag(Budget(7))), "started_at"), 0);
}

}  // namespace continuation_test
}  // namespace seqflow::testkit

// A large cached artifact is decoded only when a computing node reads it (RunState::Input).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "engine/base/bytes.h"
#include "engine/cache/entry_format.h"
#include "tests/engine/exec/executor_fixture.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::testkit {
namespace deferred_artifacts_test {

// 2 MB of doubles: past the 64 KB from which a cached artifact is deferred.
constexpr double kBigDoubles = 262144;

// big (2 MB) feeds two sums; each sum feeds a score.
Dag BigDag() {
  DagBuilder b;
  b.Add("big", "const", {{"value", 0.5}, {"doubles", kBigDoubles}})
      .Add("s1", "sum", {{"offset", 1.0}}, {{"in", {"big"}}})
      .Add("s2", "sum", {{"offset", 2.0}}, {{"in", {"big"}}})
      .Add("t1", "sum", {}, {{"in", {"s1"}}})
      .Add("t2", "sum", {}, {{"in", {"s2"}}});
  return b.dag();
}

class DeferredArtifactsTest : public ExecutorTest {
 protected:
  // Overwrites `key`'s entry file with a framed payload of the given artifact version and bytes.
  void WriteEntry(const std::string& key, uint32_t version, const std::string& artifact) const {
    ByteWriter payload;
    payload.Str(key), payload.Str("const"), payload.Str("TestValue"), payload.U32(version), payload.F64(0);
    payload.U64(0), payload.U64(0);  // no metrics, no attachments
    payload.Str(artifact);
    std::ofstream(EntryPath(key), std::ios::binary | std::ios::trunc) << EncodeFrame(kEntryMagic, payload.bytes());
  }
  std::string EntryPath(const std::string& key) const { return dir_ + "/" + key.substr(0, 2) + "/" + key + ".sfa"; }
};

TEST_F(DeferredArtifactsTest, ARunWhoseConsumersAreCachedNeverDecodesTheLargeArtifact) {
  const Dag dag = BigDag();
  ASSERT_TRUE(Run(dag).ok());
  DataLoads() = 0;
  RunResult r = Run(dag);
  ASSERT_OK(r.FirstError());
  for (const NodeOutcome& n : r.nodes) EXPECT_EQ(n.status, NodeStatus::kCached) << n.name;
  EXPECT_EQ(DataLoads(), 0);
  EXPECT_EQ(Outcome(r, "s1").metrics.at("count"), 1.0);  // metrics come without the artifact
}

TEST_F(DeferredArtifactsTest, ConsumersThatComputeLoadItOnceBetweenThem) {
  const Dag dag = BigDag();
  ASSERT_TRUE(Run(dag).ok());
  const std::string s1 = Bytes(dag.nodes[1].key), s2 = Bytes(dag.nodes[2].key);
  DataLoads() = 0;
  RunResult r = Run(dag, 2, {"s1", "s2"});
  ASSERT_OK(r.FirstError());
  EXPECT_EQ(Outcome(r, "big").status, NodeStatus::kCached);
  EXPECT_EQ(Outcome(r, "s1").status, NodeStatus::kComputed);
  EXPECT_EQ(Outcome(r, "s2").status, NodeStatus::kComputed);
  EXPECT_EQ(DataLoads(), 1);
  EXPECT_EQ(Bytes(dag.nodes[1].key), s1);
  EXPECT_EQ(Bytes(dag.nodes[2].key), s2);
}

// An entry whose frame and fields are sound but whose artifact does not decode: the node is
// reused, its consumer that computes fails naming it, and the entry is removed so that the next
// run recomputes it.
TEST_F(DeferredArtifactsTest, AnArtifactThatFailsToDecodeLateFailsItsConsumerAndIsRecomputedNextRun) {
  const Dag dag = BigDag();
  ASSERT_TRUE(Run(dag).ok());
  const std::string path = EntryPath(dag.nodes[0].key);
  WriteEntry(dag.nodes[0].key, TestValue::kVersion, std::string(3 << 20, '\xff'));  // a text length past the end

  RunResult failed = Run(dag, 2, {"s1"});
  EXPECT_EQ(Outcome(failed, "big").status, NodeStatus::kCached);
  EXPECT_EQ(Outcome(failed, "s1").status, NodeStatus::kFailed);
  EXPECT_THAT(Outcome(failed, "s1").error.message(),
              ::testing::HasSubstr("input from node 'big' (const) cannot be loaded; run again to recompute it"));
  EXPECT_FALSE(std::filesystem::exists(path));

  RunResult again = Run(dag, 2, {"s1"});
  ASSERT_OK(again.FirstError());
  EXPECT_EQ(Outcome(again, "big").status, NodeStatus::kComputed);
}

TEST_F(DeferredArtifactsTest, ALargeArtifactOfAVersionThisBuildCannotReadIsNotReused) {
  const Dag dag = BigDag();
  ASSERT_TRUE(Run(dag).ok());
  WriteEntry(dag.nodes[0].key, TestValue::kVersion + 1, std::string(3 << 20, '\0'));
  RunResult r = Run(dag);
  ASSERT_OK(r.FirstError());
  EXPECT_EQ(Outcome(r, "big").status, NodeStatus::kComputed);
}

}  // namespace deferred_artifacts_test
}  // namespace seqflow::testkit

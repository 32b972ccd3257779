// `seqflow plan`'s reasons: a node whose last run was made by a build with other numerics
// (engine/base/numerics.h) is "build changed", named before any other difference.
#include "engine/record/plan_explain.h"

#include <gtest/gtest.h>

#include "engine/base/env.h"
#include "engine/base/numerics.h"
#include "engine/cache/cache.h"
#include "tests/engine/graph/graph_fixture.h"

namespace seqflow::testutil {
namespace plan_explain_test {

class PlanExplainTest : public GraphTest {};

TEST_F(PlanExplainTest, OtherNumericsIsABuildChange) {
  Result<Dag> dag = Build("nodes:\n  src: {kind: t.source, path: data.txt}\n  x: {kind: t.double, in: [src]}\n");
  ASSERT_TRUE(dag.ok()) << dag.status().ToString();
  RunHistory last = HistoryOf(*dag);
  for (auto& [name, node] : last.nodes) {
    node.parts["numerics"] = "native:avx2,fma,avx,sse2";
    node.parts["param:factor"] = "2";  // a second difference, named after the build
    node.key = std::string(32, '0');
  }
  Cache cache(dir_ + "/cache", &registry_, Env::Default());
  const std::vector<PlanLine> lines = ExplainPlan(*dag, cache, last, {});
  ASSERT_EQ(lines.size(), 2u);
  for (const PlanLine& line : lines) {
    EXPECT_EQ(line.reason, PlanReason::kBuildChanged) << line.node;
    EXPECT_EQ(line.detail, "numerics native:avx2,fma,avx,sse2 -> " + std::string(NumericsId())) << line.node;
  }
  EXPECT_STREQ(PlanReasonName(PlanReason::kBuildChanged), "build changed");
}

// Within one class of cause, the first differing part in name order, over the parts of both
// runs: a part only one run has is "(unset)" in the other.
TEST_F(PlanExplainTest, FirstDifferenceInNameOrderOverBothRuns) {
  Result<Dag> dag = Build("nodes:\n  src: {kind: t.source, path: data.txt}\n  x: {kind: t.double, in: [src]}\n");
  ASSERT_TRUE(dag.ok()) << dag.status().ToString();
  Cache cache(dir_ + "/cache", &registry_, Env::Default());
  auto explain = [&](const std::map<std::string, std::string>& before_parts) {
    RunHistory last = HistoryOf(*dag);
    last.nodes["x"].parts = before_parts;
    return ExplainPlan(*dag, cache, last, {})[1];
  };
  const std::map<std::string, std::string> now = HistoryOf(*dag).nodes["x"].parts;
  std::map<std::string, std::string> before = now;
  before["param:aaa"] = "3";  // only before, sorted first among the parameters
  before["param:factor"] = "2";
  PlanLine line = explain(before);
  EXPECT_EQ(line.reason, PlanReason::kParamsChanged);
  EXPECT_EQ(line.detail, "aaa: 3 -> (unset)");
  before.erase("param:aaa");
  EXPECT_EQ(explain(before).detail, "factor: 2 -> 1");
  before.erase("param:factor");  // only now
  EXPECT_EQ(explain(before).detail, "factor: (unset) -> 1");
  before = now;
  before["input:in"] = std::string(32, 'f');
  before["kind"] = "t.double@0";  // the kind comes before the inputs
  line = explain(before);
  EXPECT_EQ(line.reason, PlanReason::kKindChanged);
  EXPECT_EQ(line.detail, "t.double@0 -> t.double@1");
  before.erase("kind");
  line = explain(before);
  EXPECT_EQ(line.reason, PlanReason::kKindChanged) << "unset before";
  EXPECT_EQ(line.detail, "(unset) -> t.double@1");
  before["kind"] = now.at("kind");
  line = explain(before);
  EXPECT_EQ(line.reason, PlanReason::kInputChanged);
  EXPECT_EQ(line.detail, "input 'in' changed");
  line = explain(now);
  EXPECT_EQ(line.reason, PlanReason::kMissing);
}

}  // namespace plan_explain_test
}  // namespace seqflow::testutil

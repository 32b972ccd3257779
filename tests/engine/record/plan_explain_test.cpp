// `seqflow plan`'s reasons: a node whose last run was made by a build with other numerics
// (engine/base/numerics.h) is "build changed", named before any other difference.
#include "engine/record/plan_explain.h"

#include <gtest/gtest.h>

#include "engine/base/env.h"
#include "engine/base/numerics.h"
#include "engine/cache/cache.h"
#include "tests/engine/graph/graph_fixture.h"

namespace seqflow::testutil {
namespace {

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

}  // namespace
}  // namespace seqflow::testutil

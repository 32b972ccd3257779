// LoadPipeline: what every command gets from a pipeline file, with the real registry.
#include "cli/session.h"

#include <gtest/gtest.h>

#include <string>

namespace seqflow::cli {
namespace session_test {

// The name and the repeat flag are the file's, after the spec went into the runs (summary.json
// and the run histories are keyed by the name: an empty one would orphan every history).
TEST(SessionTest, LoadPipelineKeepsTheNameAndRepeatFlag) {
  FileHasher hasher(Env::Default());
  Result<Pipeline> pipeline = LoadPipeline(
      {std::string(SEQFLOW_SOURCE_DIR) + "/pipelines/tests/tiny_repeat.yaml", {}, ""}, Env::Default(), hasher);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status().ToString();
  EXPECT_EQ(pipeline->name, "tiny-repeat");
  EXPECT_TRUE(pipeline->repeated);
  ASSERT_EQ(pipeline->runs.size(), 6u);  // 2 decoders x 3 seeds
  for (const PlannedRun& run : pipeline->runs) {
    EXPECT_EQ(run.dag.nodes.size(), 11u);
    EXPECT_EQ(run.variant.assignment.count("train.seed"), 1u);
    EXPECT_TRUE(run.variant.spec.nodes.empty()) << "the Dag holds what commands need";
  }
}

}  // namespace session_test
}  // namespace seqflow::cli

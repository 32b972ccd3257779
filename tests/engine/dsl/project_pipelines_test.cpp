// Every pipeline the project ships says which of its data is held out (DESIGN §11: the
// data-role check only guards what is declared).
#include <filesystem>

#include <gtest/gtest.h>

#include "engine/dsl/spec.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::testutil {
namespace project_pipelines_test {

TEST(ProjectPipelines, EachDeclaresItsTestOrDevData) {
  int pipelines = 0;
  // pipelines/ and pipelines/validity/ (not tests/ or include/, which are parts or fixtures).
  for (const auto& entry : std::filesystem::recursive_directory_iterator(SourceDir() + "/pipelines")) {
    const std::string folder = entry.path().parent_path().filename().string();
    if (entry.path().extension() != ".yaml" || (folder != "pipelines" && folder != "validity")) continue;
    ++pipelines;
    Result<PipelineSpec> spec = ParsePipelineFile(entry.path().string(), {}, Env::Default());
    ASSERT_TRUE(spec.ok()) << spec.status().ToString();
    bool declared = false;
    for (const NodeSpec& node : spec->nodes) declared = declared || node.role != DataRole::kNone;
    EXPECT_TRUE(declared) << entry.path() << " declares no `role: test` (or dev) on the data it scores";
  }
  EXPECT_GE(pipelines, 20);
}

}  // namespace project_pipelines_test
}  // namespace seqflow::testutil

// The inputs pipeline_fuzz found (tests/fuzz/regressions/), replayed the way the target runs them
// (in memory: tests/fuzz/mem_env.h), in the ordinary build: each must end in a DAG or a clean
// Status.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "cli/session.h"
#include "engine/cache/cache.h"
#include "engine/record/plan_explain.h"
#include "tests/fuzz/mem_env.h"

namespace seqflow::cli {
namespace fuzz_regressions_test {

std::string Regression(const std::string& name) {
  std::ifstream in(std::string(SEQFLOW_SOURCE_DIR) + "/tests/fuzz/regressions/" + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << "missing regression input " << name;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// pipeline_fuzz.cpp's input form: the pipeline, then include files after lines "#@file".
std::map<std::string, std::string> SplitFiles(std::string input) {
  const std::string kBreak = "\n#@file\n";
  std::map<std::string, std::string> files;
  for (int n = 0;; ++n) {
    size_t end = input.find(kBreak);
    std::string name = n == 0 ? "/fuzz/pipeline.yaml" : "/fuzz/inc" + std::to_string(n) + ".yaml";
    files[name] = input.substr(0, end);
    if (end == std::string::npos) return files;
    input.erase(0, end + kBreak.size());
  }
}

Result<Pipeline> LoadAndPlan(const std::string& input, size_t max_node_instances) {
  fuzz::MemEnv env(SplitFiles(input), "/cache");
  FileHasher hasher(&env);
  Result<Pipeline> pipeline =
      LoadPipeline(PipelineArgs{"/fuzz/pipeline.yaml", {}, "", max_node_instances}, &env, hasher);
  if (!pipeline.ok()) return pipeline;
  Cache cache("/cache", &TheRegistry(), &env);
  for (const PlannedRun& run : pipeline->runs) ExplainPlan(run.dag, cache, HistoryOf(run.dag), {});
  return pipeline;
}

// A pipeline with `repeat: 60` that includes a file with `repeat: 60` that includes a grid of 8:
// the including file's repeat replaces the included one (they do not multiply), so it is 480 runs
// of 8 nodes, a legitimate study: loaded and planned in 29 ms (Release, 2026-11-25; not asserted,
// a wall-clock bound would fail on a loaded machine or under the sanitizers). The fuzz target's
// limit (1000 instances) refuses it at the top file's repeat: key instead of spending 0.6 s of
// ASan on it (it once timed out there, at 78 s, after 720,291 executions in one process on a
// loaded machine; replayed alone it takes 0.6 s).
// The fuzzer also left a NUL and bytes that are not UTF-8 in the second include's comments: not
// YAML's characters, so that file is an error at the NUL (checked first), and the rest of the
// test reads each such byte as a space.
TEST(FuzzRegressionsTest, RepeatThroughIncludesOverAGrid) {
  std::string input = Regression("pipeline_repeat_through_includes");
  Result<Pipeline> nul = LoadAndPlan(input, kMaxNodeInstances);
  ASSERT_FALSE(nul.ok());
  EXPECT_EQ(nul.status().loc().file, "/fuzz/inc2.yaml");
  EXPECT_EQ(nul.status().loc().line, 1);
  EXPECT_EQ(nul.status().loc().col, 28);
  EXPECT_NE(nul.status().message().find("control characters are not allowed (U+0000)"), std::string::npos)
      << nul.status().ToString();
  for (char& c : input)
    if ((c < ' ' && c != '\n') || static_cast<unsigned char>(c) >= 0x80) c = ' ';
  Result<Pipeline> pipeline = LoadAndPlan(input, kMaxNodeInstances);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status().ToString();
  ASSERT_EQ(pipeline->runs.size(), 480u);
  for (const PlannedRun& run : pipeline->runs) ASSERT_EQ(run.dag.nodes.size(), 8u);

  Result<Pipeline> refused = LoadAndPlan(input, 1000);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().loc().file, "/fuzz/pipeline.yaml");
  EXPECT_EQ(refused.status().loc().line, 7);
  EXPECT_EQ(refused.status().message(),
            "repeat: 60 over 8 runs of 8 nodes takes the pipeline past 1000 node instances (60 x 8 x 8); run one axis "
            "at a time (--ablation AXIS), use fewer values or seeds, or split the pipeline into files that include a "
            "shared part");
}

}  // namespace fuzz_regressions_test
}  // namespace seqflow::cli

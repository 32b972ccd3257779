// libFuzzer target: pipeline text -> parsed, included, expanded, validated DAGs and their plans,
// as `seqflow plan` builds them, with nothing executed. Every input must end in a DAG or a clean
// Status; an escaping exception, a crash or a sanitizer report is a bug.
//
// Input: the pipeline, then optional include files, each after a line "#@file". The pipeline is
// /fuzz/pipeline.yaml and the Nth extra file /fuzz/incN.yaml, all in memory (MemEnv), so
// `include:` reaches only them; other paths read as fake files (mem_env.h).
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "cli/session.h"
#include "engine/cache/cache.h"
#include "engine/record/plan_explain.h"
#include "tests/fuzz/mem_env.h"

namespace {

constexpr std::string_view kFileBreak = "\n#@file\n";

// The front end's code is the same at a thousand node instances as at its limit of 10^6
// (plan_scale_bench times the scale); an input that expands past this one ends at the limit's
// located error instead of taking seconds under ASan (a repeat: 60 over a grid of 8: 0.6 s).
constexpr size_t kFuzzMaxNodeInstances = 1000;

std::map<std::string, std::string> SplitFiles(std::string_view input) {
  std::map<std::string, std::string> files;
  for (int n = 0;; ++n) {
    size_t end = input.find(kFileBreak);
    std::string name = n == 0 ? "/fuzz/pipeline.yaml" : "/fuzz/inc" + std::to_string(n) + ".yaml";
    files[name] = std::string(input.substr(0, end));
    if (end == std::string_view::npos) return files;
    input.remove_prefix(end + kFileBreak.size());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace seqflow;
  fuzz::MemEnv env(SplitFiles(std::string_view(reinterpret_cast<const char*>(data), size)), "/cache");
  FileHasher hasher(&env);
  Result<cli::Pipeline> pipeline = cli::LoadPipeline(cli::PipelineArgs{"/fuzz/pipeline.yaml", {}, "", kFuzzMaxNodeInstances}, &env, hasher);
  if (!pipeline.ok()) return 0;
  Cache cache("/cache", &cli::TheRegistry(), &env);
  for (const cli::PlannedRun& run : pipeline->runs) {
    RunHistory history = HistoryOf(run.dag);
    ExplainPlan(run.dag, cache, history, {});
    ToDot(run.dag, pipeline->name);
  }
  return 0;
}

// How `seqflow plan` scales with the number of node instances: the wide pipeline of
// bench/wide_pipeline.py (N/5 branches of split -> vocab -> hmm -> decode -> eval on the Cora
// citations) parsed, bound, keyed and explained against an empty cache, at N = 10^3, 10^4, 10^5.
// Every step is linear by design; ->Complexity(oN) fits the times, and an RMS of more than a few
// tens of percent means a step went superlinear (the scan per node in the DSL's include merge
// made it quadratic: 16 s at 10^5). Needs the citations data ($SEQFLOW_DATA, default
// ../shared/data beside the source tree).
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "engine/cache/cache.h"
#include "engine/cli/session.h"
#include "engine/dsl/spec.h"
#include "engine/record/plan_explain.h"

namespace seqflow {
namespace {

std::string DataDir() {
  const char* env = std::getenv("SEQFLOW_DATA");
  if (env != nullptr && *env) return env;
  return std::string(SEQFLOW_SOURCE_DIR) + "/../shared/data";
}

// The text bench/wide_pipeline.py writes for `instances`, with ${data} set to DataDir().
std::string WidePipeline(int instances) {
  std::string text = "name: wide\nvars:\n  data: " + DataDir() +
                     "\nnodes:\n"
                     "  train: {kind: read.conll, path: \"${data}/citations/cora_tok.train\", separator: tab, "
                     "encoding: runs}\n"
                     "  test: {kind: read.conll, path: \"${data}/citations/cora_tok.test\", separator: tab, "
                     "encoding: runs, role: test}\n";
  for (int b = 0; b < instances / 5; ++b) {
    const std::string i = std::to_string(b);
    text += "  part" + i + ": {kind: split, in: {data: train}, count: 100, seed: " + std::to_string(b + 1) + "}\n";
    text += "  vocab" + i + ": {kind: features.vocab, in: [part" + i + "], min_count: 2, unknown: shape}\n";
    text += "  hmm" + i + ": {kind: hmm.supervised, in: {data: part" + i + ", vocab: vocab" + i + "}}\n";
    text += "  predicted" + i + ": {kind: decode.viterbi, in: {model: hmm" + i + ", data: test}}\n";
    text += "  score" + i + ": {kind: eval.segments, in: {predicted: predicted" + i + ", gold: test}}\n";
  }
  return text;
}

class WideFixture {
 public:
  explicit WideFixture(int instances)
      : dir_(std::filesystem::temp_directory_path() / ("seqflow-plan-bench-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "wide.yaml").string();
    std::ofstream(path_) << WidePipeline(instances);
  }
  ~WideFixture() { std::filesystem::remove_all(dir_); }
  const std::string& path() const { return path_; }
  std::string cache_dir() const { return (dir_ / "cache").string(); }

 private:
  std::filesystem::path dir_;
  std::string path_;
};

void SetInstances(benchmark::State& state) {
  state.SetComplexityN(state.range(0));
  state.counters["per_node"] = benchmark::Counter(static_cast<double>(state.range(0)),
                                                  benchmark::Counter::kIsIterationInvariantRate |
                                                      benchmark::Counter::kInvert);
}

// The DSL alone: YAML, vars, the node specs.
void BM_ParseWide(benchmark::State& state) {
  WideFixture wide(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    Result<PipelineSpec> spec = ParsePipelineFile(wide.path(), Overrides{}, Env::Default());
    if (!spec.ok()) return state.SkipWithError(spec.status().ToString().c_str());
    benchmark::DoNotOptimize(spec->nodes.size());
  }
  SetInstances(state);
}

// What `seqflow plan` does before printing: parse, bind, order, check roles, key, explain.
void BM_PlanWide(benchmark::State& state) {
  WideFixture wide(static_cast<int>(state.range(0)));
  Cache cache(wide.cache_dir(), &cli::TheRegistry(), Env::Default());
  for (auto _ : state) {
    FileHasher hasher(Env::Default());
    Result<cli::Pipeline> pipeline = cli::LoadPipeline({wide.path(), {}, ""}, Env::Default(), hasher);
    if (!pipeline.ok()) return state.SkipWithError(pipeline.status().ToString().c_str());
    std::vector<PlanLine> lines = ExplainPlan(pipeline->runs[0].dag, cache, RunHistory{}, {});
    benchmark::DoNotOptimize(lines.size());
  }
  SetInstances(state);
}

BENCHMARK(BM_ParseWide)->RangeMultiplier(10)->Range(1000, 100000)->Unit(benchmark::kMillisecond)->Complexity(benchmark::oN);
BENCHMARK(BM_PlanWide)->RangeMultiplier(10)->Range(1000, 100000)->Unit(benchmark::kMillisecond)->Complexity(benchmark::oN);

}  // namespace
}  // namespace seqflow

BENCHMARK_MAIN();

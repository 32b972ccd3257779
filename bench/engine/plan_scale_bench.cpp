// How `seqflow plan` scales with the number of node instances: the wide pipeline of
// bench/wide_pipeline.py (N/5 branches of split -> vocab -> hmm -> decode -> eval on the Cora
// citations) parsed, bound, keyed and explained against an empty cache, at N = 10^3, 10^4, 10^5.
// Every step is linear by design, so the time per node instance may not grow much with N: the
// binary exits 1 when a benchmark's time per instance at the largest N is more than
// kMaxPerNodeGrowth times that at the smallest (taken in one invocation). Linear it is ~1.3x;
// the scan per node in the DSL's include merge made it 5x (16 s at 10^5 on a loaded machine).
// ->Complexity(oN) prints the fit as well. Needs the citations data ($SEQFLOW_DATA, default
// ../shared/data beside the source tree).
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "cli/session.h"
#include "engine/cache/cache.h"
#include "engine/dsl/spec.h"
#include "engine/record/plan_explain.h"
#include "tests/testutil/status_matchers.h"
#include "tests/testutil/wide_pipeline.h"

namespace seqflow {
namespace {

class WideFixture {
 public:
  explicit WideFixture(int instances, bool repeated = false)
      : dir_(std::filesystem::temp_directory_path() / ("seqflow-plan-bench-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "wide.yaml").string();
    std::ofstream(path_) << testutil::WidePipeline(testutil::DataDir(), instances, repeated);
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
  state.counters["per_node"] = benchmark::Counter(
      static_cast<double>(state.range(0)), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
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

// The same instances as N/5 runs of a repeated pipeline (each run held every seed: 12 GB for
// repeat: 20000).
void BM_PlanRepeated(benchmark::State& state) {
  WideFixture wide(static_cast<int>(state.range(0)), true);
  Cache cache(wide.cache_dir(), &cli::TheRegistry(), Env::Default());
  for (auto _ : state) {
    FileHasher hasher(Env::Default());
    Result<cli::Pipeline> pipeline = cli::LoadPipeline({wide.path(), {}, ""}, Env::Default(), hasher);
    if (!pipeline.ok()) return state.SkipWithError(pipeline.status().ToString().c_str());
    for (const cli::PlannedRun& run : pipeline->runs)
      benchmark::DoNotOptimize(ExplainPlan(run.dag, cache, RunHistory{}, {}).size());
  }
  SetInstances(state);
}

BENCHMARK(BM_ParseWide)
    ->RangeMultiplier(10)
    ->Range(1000, 100000)
    ->Unit(benchmark::kMillisecond)
    ->Complexity(benchmark::oN);
BENCHMARK(BM_PlanWide)
    ->RangeMultiplier(10)
    ->Range(1000, 100000)
    ->Unit(benchmark::kMillisecond)
    ->Complexity(benchmark::oN);
BENCHMARK(BM_PlanRepeated)
    ->RangeMultiplier(10)
    ->Range(1000, 100000)
    ->Unit(benchmark::kMillisecond)
    ->Complexity(benchmark::oN);

constexpr double kMaxPerNodeGrowth = 3.0;

// The console report, plus each benchmark's time per instance by N.
class GrowthReporter : public benchmark::ConsoleReporter {
 public:
  GrowthReporter() : ConsoleReporter(OO_None) {}
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs)
      if (run.run_type == Run::RT_Iteration && !run.error_occurred && run.complexity_n > 0)
        per_node_[run.run_name.function_name][run.complexity_n] =
            run.GetAdjustedRealTime() / static_cast<double>(run.complexity_n);
    ConsoleReporter::ReportRuns(runs);
  }
  // Prints the growth of each benchmark; false when one grew more than allowed.
  bool Linear() const {
    bool linear = true;
    for (const auto& [name, by_n] : per_node_) {
      if (by_n.size() < 2) continue;
      double growth = by_n.rbegin()->second / by_n.begin()->second;
      bool ok = growth <= kMaxPerNodeGrowth;
      std::printf("%s: time per instance x%.2f from N = %lld to %lld (limit x%.1f)%s\n", name.c_str(), growth,
                  static_cast<long long>(by_n.begin()->first), static_cast<long long>(by_n.rbegin()->first),
                  kMaxPerNodeGrowth, ok ? "" : ": SUPERLINEAR");
      linear = linear && ok;
    }
    return linear;
  }

 private:
  std::map<std::string, std::map<int64_t, double>> per_node_;
};

}  // namespace
}  // namespace seqflow

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  seqflow::GrowthReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return reporter.Linear() ? 0 : 1;
}

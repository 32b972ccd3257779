// Wall time of a fully cached rerun of pipelines/conll2000_hmm.yaml (all four ablation runs),
// as a user sees it: the real `seqflow` binary, process start-up included. Target: < 0.3 s.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>
#include <vector>

#include "bench/engine/spawn_seqflow.h"

namespace {

using seqflow::bench::RunSeqflow;

void BM_CachedRerunConll2000Hmm(benchmark::State& state) {
  std::string cache = (std::filesystem::temp_directory_path() / "seqflow-bench-rerun-cache").string();
  std::filesystem::remove_all(cache);
  std::vector<std::string> args = {"run", std::string(SEQFLOW_SOURCE_DIR) + "/pipelines/conll2000_hmm.yaml", "--cache",
                                   cache};
  if (RunSeqflow(args) != 0) {
    state.SkipWithError("cold run failed (is ../shared/data present?)");
    return;
  }
  for (auto _ : state) {
    if (RunSeqflow(args) != 0) state.SkipWithError("cached run failed");
  }
  std::filesystem::remove_all(cache);
}
BENCHMARK(BM_CachedRerunConll2000Hmm)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(20);

}  // namespace

BENCHMARK_MAIN();

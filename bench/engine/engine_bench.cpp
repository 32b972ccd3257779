// Per-node engine overhead: a DAG of 200 trivial nodes run cold (every node computed and
// published to the cache), fully cached (every node loaded from disk) and from the in-process
// memo. The "per_node" counter is seconds per node; the target is < 1 ms.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <stdexcept>

#include "engine/exec/executor.h"
#include "tests/engine/exec/fake_kinds.h"

namespace seqflow {
namespace {

constexpr int kNodes = 200;
constexpr int kRoots = 20;

std::string NodeName(int i) { return std::string("n").append(std::to_string(i)); }

// kRoots constants, then sums of two earlier nodes at distances 1 and kRoots, so the graph is
// deep and wide at once. Empty texts keep every artifact tiny (sum concatenates its inputs').
Dag TrivialDag() {
  testkit::DagBuilder b;
  for (int i = 0; i < kNodes; ++i) {
    if (i < kRoots)
      b.Add(NodeName(i), "const", {{"value", static_cast<double>(i)}, {"text", std::string()}});
    else
      b.Add(NodeName(i), "sum", {}, {{"in", {NodeName(i - 1), NodeName(i - kRoots)}}});
  }
  return b.dag();
}

class Fixture {
 public:
  Fixture()
      : dir_((std::filesystem::temp_directory_path() / ("seqflow-bench-" + std::to_string(::getpid()))).string()),
        cache_(dir_, &testkit::FakeRegistry(), Env::Default()),
        dag_(TrivialDag()) {}
  ~Fixture() { std::filesystem::remove_all(dir_); }
  void Clear() { std::filesystem::remove_all(dir_); }
  RunResult Run(ArtifactMemo& memo, int threads) {
    ExecOptions options;
    options.threads = threads;
    RunResult r = Execute(dag_, cache_, memo, Env::Default(), options);
    if (!r.ok()) throw std::runtime_error(r.FirstError().ToString());
    return r;
  }

 private:
  std::string dir_;
  Cache cache_;
  Dag dag_;
};

void SetPerNode(benchmark::State& state) {
  state.counters["per_node"] =
      benchmark::Counter(kNodes, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_Cold(benchmark::State& state) {
  Fixture f;
  for (auto _ : state) {
    state.PauseTiming();
    f.Clear();
    ArtifactMemo memo;
    state.ResumeTiming();
    f.Run(memo, static_cast<int>(state.range(0)));
  }
  SetPerNode(state);
}

void BM_Cached(benchmark::State& state) {
  Fixture f;
  ArtifactMemo warm;
  f.Run(warm, 2);
  for (auto _ : state) {
    ArtifactMemo memo;  // empty: every node is loaded from the cache directory
    f.Run(memo, static_cast<int>(state.range(0)));
  }
  SetPerNode(state);
}

void BM_Memo(benchmark::State& state) {
  Fixture f;
  ArtifactMemo memo;
  f.Run(memo, 2);
  for (auto _ : state) f.Run(memo, static_cast<int>(state.range(0)));
  SetPerNode(state);
}

BENCHMARK(BM_Cold)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Cached)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Memo)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace seqflow

BENCHMARK_MAIN();

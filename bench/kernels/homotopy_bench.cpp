// Homotopy kernels at citation scale on the workload of homotopy_bench_data.h (K = 13, emission
// block free, P = K V, 1,000 unlabeled sentences of mean length 37).
//   BM_CovBuild        CountCovariance's construction: lane forward-backward on every sentence,
//                      keeping its tables (expected counts, log P(U), entropy)
//   BM_CovTimesVector  Σ_x Cov[Count] u, matrix-free (the chain library's tangent pass)
//   BM_CovDense        Σ_x Cov[Count] as a dense [P x P] matrix (Z-table, §4)
//   BM_PathStep        TraceEmLambdaPath with max_steps = 1 and a fixed δ: linearise at λ = 0,
//                      tangent, μ_max, one predictor + corrector, linearise, tangent, μ_max at the
//                      new point. Dense: Householder QR of DFᵀ per point, chord corrector (one
//                      QR per point); matrix-free: GMRES and Lanczos, Newton corrector.
// One thread (the machine is shared). After the runs, main prints the V where the matrix-free
// path step overtakes the dense one. The dense cases at V = 5,000 are skipped by size: P = 65,000
// makes one [P x P] matrix 33.8 GB (the limit here is 4 GB, P <= ~22,000).
// Run: build/bench/kernels/homotopy_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>

#include "bench/kernels/homotopy_bench_data.h"
#include "nodes/homotopy/count_covariance.h"
#include "nodes/homotopy/path_tracker.h"

namespace seqflow {
namespace {

using bench::GetHomotopyWorkload;
constexpr int kStates = bench::kHomotopyStates;
constexpr double kMaxDenseBytes = 4e9;

bool DenseFits(int V) {
  const double p = static_cast<double>(kStates) * V;
  return p * p * sizeof(double) <= kMaxDenseBytes;
}

void BM_CovBuild(benchmark::State& state) {
  const bench::HomotopyWorkload& w = GetHomotopyWorkload(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    const CountCovariance cov(w.layout, w.supervised, w.unlabeled, 1);
    benchmark::DoNotOptimize(cov.log_likelihood());
  }
}

void BM_CovTimesVector(benchmark::State& state) {
  const bench::HomotopyWorkload& w = GetHomotopyWorkload(static_cast<int>(state.range(0)));
  const CountCovariance cov(w.layout, w.supervised, w.unlabeled, 1);
  const Eigen::VectorXd u = Eigen::VectorXd::LinSpaced(w.layout.num_params(), -1.0, 1.0);
  for (auto _ : state) benchmark::DoNotOptimize(cov.Apply(u).data());
  state.counters["P"] = w.layout.num_params();
}

void BM_CovDense(benchmark::State& state) {
  const int V = static_cast<int>(state.range(0));
  if (!DenseFits(V)) {
    state.SkipWithError("skipped by size: P x P doubles exceed 4 GB");
    return;
  }
  const bench::HomotopyWorkload& w = GetHomotopyWorkload(V);
  const CountCovariance cov(w.layout, w.supervised, w.unlabeled, 1);
  for (auto _ : state) benchmark::DoNotOptimize(cov.Dense().data());
  state.counters["P"] = w.layout.num_params();
}

void BM_PathStep(benchmark::State& state) {
  const bool dense = state.range(0) == 1;
  const int V = static_cast<int>(state.range(1));
  if (dense && !DenseFits(V)) {
    state.SkipWithError("skipped by size: P x P doubles exceed 4 GB");
    return;
  }
  const bench::HomotopyWorkload& w = GetHomotopyWorkload(V);
  PathOptions options;
  options.solver = dense ? PathSolver::kDense : PathSolver::kMatrixFree;
  options.chord = dense;
  options.adaptive = false;
  options.step = 0.05;
  options.max_steps = 1;
  int corrector = 0;
  for (auto _ : state) {
    const PathResult r = ValueOrThrow(TraceEmLambdaPath(w.layout, w.supervised, w.em0, w.unlabeled, options));
    corrector = r.points.back().corrector_iterations;
    benchmark::DoNotOptimize(r.points.back().lambda);
  }
  state.counters["P"] = w.layout.num_params();
  state.counters["corrector_iters"] = corrector;
}

BENCHMARK(BM_CovBuild)->Arg(500)->Arg(5000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CovTimesVector)->Arg(500)->Arg(5000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CovDense)->Arg(500)->Arg(5000)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_PathStep)
    ->ArgNames({"dense", "V"})
    ->ArgsProduct({{1, 0}, {10, 25, 50, 100, 200, 500}})
    ->Args({1, 5000})
    ->Args({0, 5000})
    ->Unit(benchmark::kSecond)
    ->Iterations(1);

// Collects the path-step times to print the crossover after the normal console report.
class CrossoverReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      const std::string name = run.benchmark_name();
      if (name.rfind("BM_PathStep/", 0) != 0 || run.error_occurred) continue;
      const bool dense = name.find("dense:1") != std::string::npos;
      const int V = std::stoi(name.substr(name.find("V:") + 2));
      (dense ? dense_ : free_)[V] = run.GetAdjustedRealTime();
    }
  }

  // The crossover is the smallest V from which on the matrix-free step wins at every V measured.
  void PrintCrossover() const {
    int crossover = -1;
    for (const auto& [V, t_dense] : dense_) {
      const auto it = free_.find(V);
      if (it == free_.end()) continue;
      std::printf("V = %5d: dense %8.2f s, matrix-free %8.2f s, ratio %6.2f\n", V, t_dense, it->second,
                  t_dense / it->second);
      if (it->second >= t_dense) {
        crossover = -1;
      } else if (crossover < 0) {
        crossover = V;
      }
    }
    if (crossover < 0) {
      std::printf("crossover: the dense step is not overtaken within the V measured\n");
    } else {
      std::printf("crossover: matrix-free faster from V = %d (P = %d) on\n", crossover, kStates * crossover);
    }
  }

 private:
  std::map<int, double> dense_, free_;
};

}  // namespace
}  // namespace seqflow

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  seqflow::CrossoverReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.PrintCrossover();
  benchmark::Shutdown();
  return 0;
}

// The normal-flow tracker (nodes/numerics/normal_flow.h) on HOMPACK90's test problems: Brown's
// almost-linear function at n = 5 as a fixed-point homotopy (dense QR and Krylov back ends),
// HOMPACK90 driver 3's sparse 8-variable system (Krylov back end on sparse products), and the 4
// paths of the two-quadric total-degree system. Counters: map evaluations per track.
// Run: build/bench/kernels/normal_flow_bench
#include <benchmark/benchmark.h>

#include "nodes/numerics/normal_flow.h"
#include "tests/nodes/numerics/normal_flow_maps.h"

namespace seqflow {
namespace {

void TrackOnce(benchmark::State& state, const HomotopyMap& map, const std::vector<Eigen::VectorXd>& starts,
               const NormalFlowOptions& options = {}) {
  int evaluations = 0;
  for (auto _ : state) {
    evaluations = 0;
    for (const Eigen::VectorXd& y0 : starts) {
      Result<NormalFlowResult> r = TrackNormalFlow(map, y0, options);
      if (!r.ok()) {
        state.SkipWithError(r.status().ToString().c_str());
        return;
      }
      evaluations += r->evaluations;
    }
  }
  state.counters["evaluations"] = evaluations;
}

void BM_BrownDense(benchmark::State& state) {
  TrackOnce(state, testutil::BrownFixedPointMap(Eigen::VectorXd::Zero(5)), {Eigen::VectorXd::Zero(6)});
}

void BM_BrownKrylov(benchmark::State& state) {
  TrackOnce(state, testutil::BrownFixedPointKrylovMap(Eigen::VectorXd::Zero(5)), {Eigen::VectorXd::Zero(6)});
}

void BM_Driver3Sparse(benchmark::State& state) {
  const Eigen::VectorXd a = Eigen::VectorXd::Constant(8, 0.5);
  Eigen::VectorXd y0(9);
  y0 << a, 0.0;
  TrackOnce(state, testutil::Driver3Map(a), {y0}, [] {
    NormalFlowOptions o;
    o.final_rel_tol = o.final_abs_tol = 1e-12;  // the driver's ANSRE, ANSAE
    return o;
  }());
}

void BM_TwoQuadricPaths(benchmark::State& state) {
  std::vector<Eigen::VectorXd> starts;
  for (int path = 0; path < 4; ++path) starts.push_back(testutil::TwoQuadricStart(path));
  TrackOnce(state, testutil::TwoQuadricMap(), starts);
}

BENCHMARK(BM_BrownDense)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_BrownKrylov)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Driver3Sparse)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_TwoQuadricPaths)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace seqflow

BENCHMARK_MAIN();

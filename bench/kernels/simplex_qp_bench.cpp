// One simplex QP of the anchor HMM (nodes/optim/simplex_qp.h; Marinho et al. 2016, Eq. 14/26):
// the paper reports 1.7 ms per QP in Gurobi at K = 12; the aim is <= 30 µs here.
// Workload: R is C x K with non-negative entries and two nearly collinear columns (as anchor
// context moments are), q = R γ* + noise; 256 different q per A, solved in turn.
// BM_SimplexQp/K/C/lambda_percent/warm: warm 0 starts each QP from the uniform point; warm 1 from
// the previous word's solution (what moments.anchor_hmm does). Counter: iterations per QP.
// Run: build/bench/kernels/simplex_qp_bench
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "nodes/optim/simplex_qp.h"

namespace seqflow {
namespace {

void BM_SimplexQp(benchmark::State& state) {
  const int k = static_cast<int>(state.range(0)), c = static_cast<int>(state.range(1));
  const double lambda = static_cast<double>(state.range(2)) / 100;
  const bool warm = state.range(3) != 0;
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> u(0, 1);
  std::exponential_distribution<double> e(1);
  Eigen::MatrixXd r = Eigen::MatrixXd::NullaryExpr(c, k, [&] { return u(rng) * u(rng); });
  r.col(k - 1) = 0.7 * r.col(0) + 0.3 * r.col(k - 1);
  const Eigen::MatrixXd a = (1 - lambda) * r.transpose() * r + lambda * Eigen::MatrixXd::Identity(k, k);
  std::vector<Eigen::VectorXd> betas;
  for (int i = 0; i < 256; ++i) {
    Eigen::VectorXd truth = Eigen::VectorXd::NullaryExpr(k, [&] { return e(rng); });
    truth /= truth.sum();
    Eigen::VectorXd q = r * truth + 0.05 * Eigen::VectorXd::NullaryExpr(c, [&] { return u(rng); });
    betas.push_back((1 - lambda) * r.transpose() * q + lambda * truth);
  }
  SimplexQp qp = std::move(SimplexQp::Create(a)).value();
  Eigen::VectorXd x(k);
  const Eigen::VectorXd uniform = Eigen::VectorXd::Constant(k, 1.0 / k);
  x = uniform;
  int64_t iterations = 0, solves = 0;
  for (auto _ : state) {
    const Eigen::VectorXd& beta = betas[solves % betas.size()];
    if (!warm) x = uniform;
    SimplexQpStats stats = std::move(qp.Solve(beta, x)).value();
    iterations += stats.iterations;
    ++solves;
    benchmark::DoNotOptimize(x.data());
  }
  state.counters["iterations"] = static_cast<double>(iterations) / static_cast<double>(solves);
}
BENCHMARK(BM_SimplexQp)
    ->ArgsProduct({{12}, {200}, {0, 50}, {0, 1}})
    ->Args({50, 400, 0, 1})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace seqflow
BENCHMARK_MAIN();

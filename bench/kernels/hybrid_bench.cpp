// HySOL's hot kernels on the workload of hybrid_bench_data.h (CoNLL-2000 train used as text,
// 211,727 tokens, 22 labels; 4 CRF experts with random token scores, 18 HMMs over real symbols):
//   BM_HybridExpectedCounts/threads        one E-step of step 4.1 (merged potentials, forward-
//                                          backward, expected HMM counts)
//   BM_HybridConditionalLikelihood/threads Eq. 3 with its Γ gradient (one evaluation of step 4.2)
//   BM_HybridConditionalLikelihoodGathered/threads  the same with the HMMs' emission rows gathered
//                                          once (GatherEmissions), as the Γ fit evaluates it
//   BM_MaximizeGenerative                  the M-step over all 18 HMMs
//   BM_ExpertLogPartition/threads          Σ_n log Z_i(x_n) of one expert (forward pass only)
// Throughput is reported as tokens/s. Data: $SEQFLOW_DATA, else ../shared/data.
// Run: build/bench/kernels/hybrid_bench
#include <benchmark/benchmark.h>

#include "bench/kernels/hybrid_bench_data.h"

namespace seqflow {
namespace {

using bench::HybridWorkload;
constexpr int kExperts = bench::kHybridExperts;

const HybridWorkload& Data() {
  static const HybridWorkload workload = bench::MakeHybridWorkload(0);
  return workload;
}

void BM_HybridExpectedCounts(benchmark::State& state) {
  const HybridWorkload& w = Data();
  GenerativeCounts counts;
  for (auto _ : state)
    benchmark::DoNotOptimize(
        HybridExpectedCounts(w.corpus, w.experts, w.theta, w.gamma, static_cast<int>(state.range(0)), counts));
  state.SetItemsProcessed(state.iterations() * w.corpus.num_tokens());
}
BENCHMARK(BM_HybridExpectedCounts)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_HybridConditionalLikelihood(benchmark::State& state) {
  const HybridWorkload& w = Data();
  Eigen::VectorXd gradient;
  for (auto _ : state)
    benchmark::DoNotOptimize(HybridConditionalLogLikelihood(w.corpus, w.experts, w.theta, w.gamma,
                                                            static_cast<int>(state.range(0)), &gradient));
  state.SetItemsProcessed(state.iterations() * w.corpus.num_tokens());
}
BENCHMARK(BM_HybridConditionalLikelihood)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_HybridConditionalLikelihoodGathered(benchmark::State& state) {
  const HybridWorkload& w = Data();
  const RowMatrixXd gathered = GatherEmissions(w.corpus, w.theta);
  Eigen::VectorXd gradient;
  for (auto _ : state)
    benchmark::DoNotOptimize(HybridConditionalLogLikelihood(
        w.corpus, w.experts, w.theta, w.gamma, static_cast<int>(state.range(0)), &gradient, nullptr, &gathered));
  state.SetItemsProcessed(state.iterations() * w.corpus.num_tokens());
}
BENCHMARK(BM_HybridConditionalLikelihoodGathered)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_MaximizeGenerative(benchmark::State& state) {
  const HybridWorkload& w = Data();
  const Eigen::VectorXd weights = w.gamma.tail(w.gamma.size() - kExperts);
  for (auto _ : state) benchmark::DoNotOptimize(MaximizeGenerative(w.counts, weights, 1e-4));
}
BENCHMARK(BM_MaximizeGenerative)->Unit(benchmark::kMillisecond);

void BM_ExpertLogPartition(benchmark::State& state) {
  const HybridWorkload& w = Data();
  for (auto _ : state)
    benchmark::DoNotOptimize(ExpertLogPartition(w.corpus, w.experts[0], 0, static_cast<int>(state.range(0))));
  state.SetItemsProcessed(state.iterations() * w.corpus.num_tokens());
}
BENCHMARK(BM_ExpertLogPartition)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace seqflow
BENCHMARK_MAIN();

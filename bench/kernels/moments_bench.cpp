// Moment collection and the anchor HMM's QPs on the Malagasy raw text (Garrette et al.; 43,600
// sentences, 777,678 tokens; data root $SEQFLOW_DATA, else ../shared/data), words with fewer than
// 3 occurrences pooled into shape classes.
// BM_CollectMoments/threads: one pass (nodes/features/moment_counts.h). Counter: tokens/s.
// BM_FeatureContexts: the one-hot counts mapped to feature contexts (context_features.h, the
//   word features of the previous/next word, min_count 5): the extra cost of `contexts: features`
//   over BM_CollectMoments. Counter: tokens/s.
// BM_AnchorEmissions/threads: R̂, one QP per symbol (K = 12 synthetic labels whose anchors are
//   12 disjoint blocks of 20 frequent words) and Bayes' rule. Counters: QPs/s, iterations per QP.
// BM_ContextCca/dims: features.cca's randomized SVD (context_cca.h) of the feature-context
//   moments above, the pipelines' 200 dims. Counters: contexts C, non-zeros of M.
// Run: build/bench/kernels/moments_bench
#include <benchmark/benchmark.h>

#include <cstdlib>

#include "bench/kernels/malagasy_raw.h"
#include "nodes/features/context_cca.h"
#include "nodes/moments/anchor_emissions.h"
#include "nodes/moments/context_features.h"

namespace seqflow {
namespace {


void BM_CollectMoments(benchmark::State& state) {
  const MalagasyRawText& raw = MalagasyRaw();
  for (auto _ : state) {
    MomentCounts m =
        std::move(CollectMomentCounts(raw.symbols, raw.vocab->size(), static_cast<int>(state.range(0)), CancelToken()))
            .value();
    benchmark::DoNotOptimize(m.tokens);
  }
  state.counters["tokens/s"] = benchmark::Counter(
      static_cast<double>(raw.tokens) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_CollectMoments)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_FeatureContexts(benchmark::State& state) {
  const MalagasyRawText& raw = MalagasyRaw();
  static const MomentCounts onehot =
      std::move(CollectMomentCounts(raw.symbols, raw.vocab->size(), 0, CancelToken())).value();
  const WordFeatures features = BuildWordFeatures(*raw.vocab);
  for (auto _ : state) {
    ContextFeatures f = std::move(BuildContextFeatures(features, onehot, 5)).value();
    MomentCounts m = MapContexts(onehot, f.map);
    benchmark::DoNotOptimize(m.cooccurrence.nonZeros());
  }
  state.counters["tokens/s"] = benchmark::Counter(
      static_cast<double>(raw.tokens) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_FeatureContexts)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_AnchorEmissions(benchmark::State& state) {
  const MalagasyRawText& raw = MalagasyRaw();
  static const MomentCounts moments =
      std::move(CollectMomentCounts(raw.symbols, raw.vocab->size(), 0, CancelToken())).value();
  std::vector<std::vector<int32_t>> anchors(12);
  for (int32_t w = 0; w < 240; ++w) anchors[w % 12].push_back(w);
  std::vector<std::string> labels;
  for (int h = 0; h < 12; ++h) labels.push_back("L" + std::to_string(h));
  AnchorEmissionOptions options;
  options.lambda = 0;
  options.threads = static_cast<int>(state.range(0));
  const LabeledMoments labeled{Eigen::MatrixXd::Zero(raw.vocab->size(), 12), {}};
  int64_t qps = 0, iterations = 0;
  for (auto _ : state) {
    AnchorEmissions e = std::move(EstimateAnchorEmissions(moments, anchors, labeled, labels, options, {})).value();
    qps += e.qps;
    iterations += e.qp_iterations;
  }
  state.counters["QPs/s"] = benchmark::Counter(static_cast<double>(qps), benchmark::Counter::kIsRate);
  state.counters["iterations"] = static_cast<double>(iterations) / static_cast<double>(qps);
}
BENCHMARK(BM_AnchorEmissions)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ContextCca(benchmark::State& state) {
  const MalagasyRawText& raw = MalagasyRaw();
  static const MomentCounts features = [&] {
    const MomentCounts onehot =
        std::move(CollectMomentCounts(raw.symbols, raw.vocab->size(), 0, CancelToken())).value();
    ContextFeatures f = std::move(BuildContextFeatures(BuildWordFeatures(*raw.vocab), onehot, 5)).value();
    return MapContexts(onehot, f.map);
  }();
  ContextCcaOptions options;
  options.dims = static_cast<int>(state.range(0));
  for (auto _ : state) {
    ContextCca cca = std::move(ComputeContextCca(features, options, CancelToken())).value();
    benchmark::DoNotOptimize(cca.correlations.data());
  }
  state.counters["contexts"] = static_cast<double>(features.num_contexts());
  state.counters["nonzeros"] = static_cast<double>(features.cooccurrence.nonZeros());
}
BENCHMARK(BM_ContextCca)->Arg(200)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace seqflow

BENCHMARK_MAIN();

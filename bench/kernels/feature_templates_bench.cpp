// Feature extraction on CoNLL-2000 train (8,936 sentences, 211,727 tokens), columns word pos:
//   BM_Fit             FeatureDictionary::Fit (count, first-occurrence ids), one thread
//   BM_ExtractCorpus   ExtractCorpus with a fitted dictionary, 1 and 2 threads
//   BM_FitAndExtract   both, as features.templates runs them (Fit is serial)
// for the template sets standard_chunking (19 templates), hysol_ner (36, with lower, shape,
// prefixes and suffixes), multiview_ner (15) and multiview_ner_ngrams (10, three of them
// multi-valued: every letter 2-, 3-, 4-gram of the word). Rates are tokens/s. Data: $SEQFLOW_DATA, else ../shared/data.
// Run: build/bench/kernels/feature_templates_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>

#include "bench/kernels/conll2000_train.h"
#include "engine/base/env.h"
#include "nodes/features/feature_templates.h"

namespace seqflow {
namespace {

const char* const kSets[] = {"standard_chunking", "hysol_ner", "multiview_ner", "multiview_ner_ngrams"};

const Corpus& Train() { return bench::Conll2000Train(); }

FeatureDictionary Fitted(const char* set) {
  FeatureDictionary dict = ValueOrThrow(FeatureDictionary::Compile(ValueOrThrow(TemplateSetByName(set)), Train().columns));
  ThrowIfError(dict.Fit(Train(), 1));
  return dict;
}

void SetRate(benchmark::State& state, const char* set, int32_t attributes) {
  const double tokens = static_cast<double>(Train().num_tokens());
  state.counters["tokens/s"] = benchmark::Counter(tokens, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["attributes"] = attributes;
  state.SetLabel(set);
}

void BM_Fit(benchmark::State& state) {
  const char* set = kSets[state.range(0)];
  int32_t attributes = 0;
  for (auto _ : state) attributes = Fitted(set).num_attributes();
  SetRate(state, set, attributes);
}

void BM_ExtractCorpus(benchmark::State& state) {
  const char* set = kSets[state.range(0)];
  const FeatureDictionary dict = Fitted(set);
  for (auto _ : state) benchmark::DoNotOptimize(ValueOrThrow(dict.ExtractCorpus(Train(), static_cast<int>(state.range(1)))));
  SetRate(state, set, dict.num_attributes());
}

void BM_FitAndExtract(benchmark::State& state) {
  const char* set = kSets[state.range(0)];
  int32_t attributes = 0;
  for (auto _ : state) {
    const FeatureDictionary dict = Fitted(set);
    benchmark::DoNotOptimize(ValueOrThrow(dict.ExtractCorpus(Train(), static_cast<int>(state.range(1)))));
    attributes = dict.num_attributes();
  }
  SetRate(state, set, attributes);
}

BENCHMARK(BM_Fit)->Arg(0)->Arg(1)->Arg(2)->Arg(3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ExtractCorpus)->ArgsProduct({{0, 1, 2, 3}, {1, 2}})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_FitAndExtract)->ArgsProduct({{0, 1}, {1, 2}})->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace seqflow

BENCHMARK_MAIN();

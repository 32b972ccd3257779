// One CrfLikelihood::Evaluate (value + gradient, one thread) of the first- and second-order CRF on
// the same CoNLL-2000 train features (standard_chunking, 22 labels), in one run so their ratio is
// taken under the same conditions (issue 21's aim: order 2 at most 4x order 1):
//   BM_CrfGradientByOrder/1   first order: K x K transitions
//   BM_CrfGradientByOrder/2   second order: pair lattice, (K+1) K² trigram transitions
// Data: $SEQFLOW_DATA, else ../shared/data. Run: build/bench/kernels/crf_order2_bench
#include <benchmark/benchmark.h>

#include <random>

#include "bench/kernels/conll2000_train.h"
#include "nodes/crf/crf_likelihood.h"

namespace seqflow {
namespace {

struct Workload {
  Corpus corpus;
  std::vector<SentenceFeatures> sentences;
  std::vector<std::vector<int32_t>> labels;
  int64_t num_attributes = 0;
};

const Workload& Data() {
  static const Workload workload = [] {
    Workload w;
    w.corpus = bench::Conll2000Train();
    FeatureDictionary dictionary = ValueOrThrow(
        FeatureDictionary::Compile(ValueOrThrow(TemplateSetByName("standard_chunking")), w.corpus.columns));
    ThrowIfError(dictionary.Fit(w.corpus, 1));
    w.sentences = ValueOrThrow(dictionary.ExtractCorpus(w.corpus, 2));
    w.num_attributes = dictionary.num_attributes();
    for (const Sentence& s : w.corpus.sentences) w.labels.push_back(s.labels);
    return w;
  }();
  return workload;
}

void BM_CrfGradientByOrder(benchmark::State& state) {
  const Workload& w = Data();
  const CrfLayout layout{w.num_attributes, static_cast<int64_t>(w.corpus.label_names.size()),
                         static_cast<int>(state.range(0))};
  std::mt19937 rng(1);
  std::normal_distribution<double> normal(0, 0.1);  // small random weights: non-uniform marginals
  Eigen::VectorXd weights(layout.size());
  for (auto& x : weights) x = normal(rng);
  CrfLikelihood f(w.sentences, w.labels, layout, 1.0, 1);
  Eigen::VectorXd g;
  for (auto _ : state) benchmark::DoNotOptimize(f.Evaluate(weights, g));
  state.counters["tokens/s"] =
      benchmark::Counter(static_cast<double>(w.corpus.num_tokens()), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["weights"] = static_cast<double>(layout.size());
}
BENCHMARK(BM_CrfGradientByOrder)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace seqflow

BENCHMARK_MAIN();

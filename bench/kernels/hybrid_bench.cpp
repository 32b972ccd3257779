// HySOL's hot kernels on CoNLL-2000 train used as text (8,936 sentences, 211,727 tokens, 22
// labels), shaped like the chunking experiment: 4 CRF experts (random token scores) and 18 HMMs,
// one per hysol_chunking feature type, over the corpus's real symbols:
//   BM_HybridExpectedCounts/threads        one E-step of step 4.1 (merged potentials, forward-
//                                          backward, expected HMM counts)
//   BM_HybridConditionalLikelihood/threads Eq. 3 with its Γ gradient (one evaluation of step 4.2)
//   BM_MaximizeGenerative                  the M-step over all 18 HMMs
// Throughput is reported as tokens/s. Data: $SEQFLOW_DATA, else ../shared/data.
// Run: build/bench/kernels/hybrid_bench
#include <benchmark/benchmark.h>

#include <random>

#include "bench/kernels/conll2000_train.h"
#include "nodes/crf/hybrid_chain.h"
#include "nodes/crf/hybrid_model.h"

namespace seqflow {
namespace {

constexpr int kExperts = 4;

struct Workload {
  HybridCorpus corpus;
  ExpertTransitions experts;
  GenerativeParams theta;
  GenerativeCounts counts;
  Eigen::VectorXd gamma;
  std::vector<int64_t> sizes;
};

const Workload& Data() {
  static const Workload workload = [] {
    Workload w;
    const Corpus& text = bench::Conll2000Train();
    auto dictionary = std::make_shared<FeatureDictionary>(TemplateSetByName("hysol_chunking"), text.columns);
    dictionary->Fit(text, 1);
    const GenerativeSymbols symbols(dictionary);
    w.sizes = symbols.vocabulary_sizes();
    HybridCorpus& c = w.corpus;
    c.num_labels = static_cast<int32_t>(text.label_names.size());
    c.offsets.assign(1, 0);
    for (const Sentence& s : text.sentences) c.offsets.push_back(c.offsets.back() + static_cast<int64_t>(s.size()));
    std::mt19937 rng(1);
    std::normal_distribution<float> normal(0, 1);
    for (int i = 0; i < kExperts; ++i) {
      RowMatrixXf scores(c.num_tokens(), c.num_labels);
      for (Eigen::Index k = 0; k < scores.size(); ++k) scores.data()[k] = normal(rng);
      c.expert_scores.push_back(std::move(scores));
      RowMatrixXd transition(c.num_labels, c.num_labels);
      for (Eigen::Index k = 0; k < transition.size(); ++k) transition.data()[k] = normal(rng);
      w.experts.push_back(std::move(transition));
    }
    c.symbols = symbols.Symbols(text, c.offsets, 2);
    for (const Sentence& s : text.sentences) c.labels.insert(c.labels.end(), s.labels.begin(), s.labels.end());
    const Eigen::Index models = kExperts + symbols.num_types();
    w.gamma = Eigen::VectorXd::Constant(models, 0.1);
    w.counts = ObservedCounts(c, w.sizes);
    w.theta = MaximizeGenerative(w.counts, Eigen::VectorXd::Ones(symbols.num_types()), 1e-4);
    return w;
  }();
  return workload;
}

void BM_HybridExpectedCounts(benchmark::State& state) {
  const Workload& w = Data();
  GenerativeCounts counts;
  for (auto _ : state)
    benchmark::DoNotOptimize(
        HybridExpectedCounts(w.corpus, w.experts, w.theta, w.gamma, static_cast<int>(state.range(0)), counts));
  state.SetItemsProcessed(state.iterations() * w.corpus.num_tokens());
}
BENCHMARK(BM_HybridExpectedCounts)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_HybridConditionalLikelihood(benchmark::State& state) {
  const Workload& w = Data();
  Eigen::VectorXd gradient;
  for (auto _ : state)
    benchmark::DoNotOptimize(HybridConditionalLogLikelihood(w.corpus, w.experts, w.theta, w.gamma,
                                                            static_cast<int>(state.range(0)), &gradient));
  state.SetItemsProcessed(state.iterations() * w.corpus.num_tokens());
}
BENCHMARK(BM_HybridConditionalLikelihood)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_MaximizeGenerative(benchmark::State& state) {
  const Workload& w = Data();
  const Eigen::VectorXd weights = w.gamma.tail(w.gamma.size() - kExperts);
  for (auto _ : state) benchmark::DoNotOptimize(MaximizeGenerative(w.counts, weights, 1e-4));
}
BENCHMARK(BM_MaximizeGenerative)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace seqflow
BENCHMARK_MAIN();

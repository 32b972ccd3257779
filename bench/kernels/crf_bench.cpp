// The CRF trainer's hot kernels on CoNLL-2000 train (8,936 sentences, 211,727 tokens, 22 labels,
// standard_chunking: 338,551 attributes, 7.45M weights):
//   BM_CrfGradient/threads   one CrfLikelihood::Evaluate (value + gradient), as L-BFGS calls it
//   BM_LbfgsDirection/threads the two-loop recursion with m = 6 float pairs over 7.45M weights
// Data: $SEQFLOW_DATA, else ../shared/data. Run: build/bench/kernels/crf_bench
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <random>
#include <string>

#include "engine/base/env.h"
#include "nodes/crf/crf_likelihood.h"
#include "nodes/io/conll_reader.h"
#include "nodes/optim/correction_history.h"

namespace seqflow {
namespace {

struct Workload {
  Corpus corpus;
  std::unique_ptr<FeatureDictionary> dictionary;
  std::vector<SentenceFeatures> sentences;
  CrfLayout layout;
  Eigen::VectorXd weights;  // small random weights: realistic, non-uniform marginals
};

const Workload& Data() {
  static const Workload workload = [] {
    Workload w;
    const char* env = std::getenv("SEQFLOW_DATA");
    const std::string path = JoinPath(env && *env ? env : SEQFLOW_DEFAULT_DATA, "conll2000/train.txt");
    Result<std::string> bytes = Env::Default()->ReadFile(path);
    if (!bytes.ok()) throw StatusError(bytes.status());
    ConllOptions options;
    options.columns = {"word", "pos", "chunk"};
    Result<Corpus> c = ParseConll(*bytes, path, options);
    if (!c.ok()) throw StatusError(c.status());
    w.corpus = std::move(*c);
    w.dictionary = std::make_unique<FeatureDictionary>(TemplateSetByName("standard_chunking"), w.corpus.columns);
    w.dictionary->Fit(w.corpus, 1);
    w.sentences = w.dictionary->ExtractCorpus(w.corpus, 2);
    w.layout = {w.dictionary->num_attributes(), static_cast<int64_t>(w.corpus.label_names.size())};
    std::mt19937 rng(1);
    std::normal_distribution<double> normal(0, 0.1);
    w.weights.resize(w.layout.size());
    for (auto& x : w.weights) x = normal(rng);
    return w;
  }();
  return workload;
}

std::vector<std::vector<int32_t>> Labels(const Corpus& corpus) {
  std::vector<std::vector<int32_t>> labels;
  for (const Sentence& s : corpus.sentences) labels.push_back(s.labels);
  return labels;
}

void BM_CrfGradient(benchmark::State& state) {
  const Workload& w = Data();
  const auto labels = Labels(w.corpus);
  CrfLikelihood f(w.sentences, labels, w.layout, 1.0, static_cast<int>(state.range(0)));
  Eigen::VectorXd g;
  for (auto _ : state) benchmark::DoNotOptimize(f.Evaluate(w.weights, g));
  state.counters["tokens/s"] =
      benchmark::Counter(static_cast<double>(w.corpus.num_tokens()), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["weights"] = static_cast<double>(w.layout.size());
}
BENCHMARK(BM_CrfGradient)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_LbfgsDirection(benchmark::State& state) {
  const Eigen::Index n = Data().layout.size();
  CorrectionHistory<float> history(n, 6, static_cast<int>(state.range(0)));
  Eigen::VectorXd g = Eigen::VectorXd::Random(n), d;
  for (int i = 0; i < 6; ++i) {
    history.Begin(Eigen::VectorXd::Random(n), g);
    history.Complete(0.5, g + Eigen::VectorXd::Random(n).cwiseAbs());
  }
  for (auto _ : state) {
    history.Direction(g, d);
    benchmark::DoNotOptimize(d.data());
  }
}
BENCHMARK(BM_LbfgsDirection)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace seqflow

BENCHMARK_MAIN();

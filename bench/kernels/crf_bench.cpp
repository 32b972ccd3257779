// The CRF trainer's hot kernels on CoNLL-2000 train (8,936 sentences, 211,727 tokens, 22 labels,
// standard_chunking: 338,551 attributes, 7.45M weights):
//   BM_CrfGradient/threads   one CrfLikelihood::Evaluate (value + gradient), as L-BFGS calls it
//   BM_CrfScores             the score rows of every sentence (pass 1's gathers from W)
//   BM_ChainFbLanes          ChainLanesForwardBackward on every sentence's precomputed scores, kLanes
//                            sentences of similar length
//                            at a time (pass 1's chain work, with float marginals as the trainer)
//   BM_GroupByTokenLists     duplicate attributes found by the whole corpus's inverted index and
//                            hashed token lists (crf.train's grouping before sharding; the oracle)
//   BM_GroupByRefinement     the same groups by partition refinement over the tokens
//                            (attribute_groups.h: what crf.train runs, resident or streamed)
//   BM_LbfgsDirection/threads the compact-form direction with m = 4 float pairs over 7.45M weights
//                            (crf.train's default), plus the next pair's y = -g it also writes
// Data: $SEQFLOW_DATA, else ../shared/data. Run: build/bench/kernels/crf_bench
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <random>
#include <string>

#include "bench/kernels/conll2000_train.h"
#include "engine/base/env.h"
#include "nodes/common/lanes.h"
#include "nodes/chain/forward_backward_lanes.h"
#include "nodes/crf/attribute_groups.h"
#include "nodes/crf/crf_likelihood.h"
#include "nodes/optim/correction_history.h"
#include "tests/testutil/attribute_groups_by_index.h"

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
    w.corpus = bench::Conll2000Train();
    w.dictionary = std::make_unique<FeatureDictionary>(ValueOrThrow(FeatureDictionary::Compile(ValueOrThrow(TemplateSetByName("standard_chunking")), w.corpus.columns)));
    ThrowIfError(w.dictionary->Fit(w.corpus, 1));
    w.sentences = ValueOrThrow(w.dictionary->ExtractCorpus(w.corpus, 2));
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

// Every sentence's scores in one [tokens x K] table, and each sentence's first row.
struct CorpusScores {
  RowMatrixXd scores;
  std::vector<int64_t> first;
};

const CorpusScores& Scores() {
  static const CorpusScores scores = [] {
    const Workload& w = Data();
    CorpusScores c;
    c.scores.resize(w.corpus.num_tokens(), w.layout.num_labels);
    RowMatrixXd s;
    for (const SentenceFeatures& sentence : w.sentences) {
      c.first.push_back(c.first.empty() ? 0 : c.first.back() + s.rows());
      CrfScores(w.weights, w.layout, sentence, s);
      c.scores.middleRows(c.first.back(), s.rows()) = s;
    }
    return c;
  }();
  return scores;
}

void BM_CrfScores(benchmark::State& state) {
  const Workload& w = Data();
  RowMatrixXd scores;
  for (auto _ : state) {
    for (const SentenceFeatures& sentence : w.sentences) CrfScores(w.weights, w.layout, sentence, scores);
    benchmark::DoNotOptimize(scores.data());
  }
  state.counters["tokens/s"] =
      benchmark::Counter(static_cast<double>(w.corpus.num_tokens()), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_CrfScores)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ChainFbLanes(benchmark::State& state) {
  const Workload& w = Data();
  const CorpusScores& c = Scores();
  const int64_t K = w.layout.num_labels;
  const ChainLanesTransition transition = ChainLanesTransition::FromLogPotentials(CrfTransition(w.weights, w.layout));
  const ChainPotentials potentials{c.scores.data(), ChainPotentials::Kind::kLogScores, nullptr};
  std::vector<int32_t> row_ids;
  const std::span<const int32_t> ids = ChainRowIds(c.scores.rows(), &row_ids);
  const auto labels = Labels(w.corpus);
  const std::vector<size_t> order = LengthSortedOrder(labels, 0, labels.size());
  ChainLanesWork work;
  LaneVector<Lanes<kLanes>> xi(K * K, Lanes<kLanes>{});
  Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> marginals(c.scores.rows(), K);
  for (auto _ : state) {
    double log_z = 0;
    for (size_t b = 0; b < order.size(); b += kLanes) {
      LaneBatch<kLanes> batch;
      std::array<float*, kLanes> rows{};
      for (size_t l = 0; l < kLanes && b + l < order.size(); ++l) {
        const size_t n = order[b + l];
        batch.obs[l] = ids.subspan(c.first[n], w.sentences[n].size());
        batch.length = std::max(batch.length, batch.len(static_cast<int>(l)));
        rows[l] = marginals.data() + c.first[n] * K;
      }
      for (double z : ChainLanesForwardBackward<float>(potentials, transition, batch, work, rows, xi.data()))
        log_z += z;
    }
    benchmark::DoNotOptimize(log_z);
  }
  state.counters["tokens/s"] =
      benchmark::Counter(static_cast<double>(w.corpus.num_tokens()), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_ChainFbLanes)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_LbfgsDirection(benchmark::State& state) {
  const Eigen::Index n = Data().layout.size();
  // Room for a fifth pair, so the timed calls write y = -g into a slot no stored pair uses.
  CorrectionHistory<float> history(n, 5, static_cast<int>(state.range(0)));
  Eigen::VectorXd g = Eigen::VectorXd::Random(n);
  Eigen::VectorXf d;
  for (int i = 0; i < 4; ++i) {  // s, y > 0 elementwise: every pair has positive curvature and is kept
    history.Direction(g, d);
    d = Eigen::VectorXf::Random(n).cwiseAbs();
    history.Begin(d);
    history.Complete(0.5, g + Eigen::VectorXd::Random(n).cwiseAbs());
  }
  if (history.size() != 4) state.SkipWithError("the history did not keep 4 pairs");
  for (auto _ : state) {
    history.Direction(g, d);
    benchmark::DoNotOptimize(d.data());
  }
}
BENCHMARK(BM_LbfgsDirection)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_GroupByTokenLists(benchmark::State& state) {
  const Workload& w = Data();
  const auto A = static_cast<int32_t>(w.layout.num_attributes);
  for (auto _ : state) benchmark::DoNotOptimize(testutil::GroupByTokenLists(w.sentences, A));
  state.counters["groups"] = GroupDuplicateAttributes(w.sentences, A).num_groups();
}
BENCHMARK(BM_GroupByTokenLists)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_GroupByRefinement(benchmark::State& state) {
  const Workload& w = Data();
  const auto A = static_cast<int32_t>(w.layout.num_attributes);
  for (auto _ : state) benchmark::DoNotOptimize(GroupDuplicateAttributes(w.sentences, A));
  state.counters["groups"] = GroupDuplicateAttributes(w.sentences, A).num_groups();
}
BENCHMARK(BM_GroupByRefinement)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace seqflow

BENCHMARK_MAIN();

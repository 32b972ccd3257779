// CoNLL-2000 train as text (8,936 sentences, 211,727 tokens, 22 labels) turned into HySOL's
// per-token inputs, shaped like the chunking experiment, shared by hybrid_bench and
// box_fit_bench: kHybridExperts CRF experts with synthetic token scores and bigram weights, and
// 18 HMMs, one per hysol_chunking feature type, over the corpus's real symbols.
// Expert i's score of label k at a token is N(0, 1) (float), plus signal + i/2 for the gold label
// when signal > 0; its bigram weights are N(0, 1). signal = 0 gives pure-noise experts; signal 1
// experts that score the gold label highest at 21%, 36%, 54% and 71% of the tokens, signal 3 at
// 84%, 92%, 97% and 99% (Monte Carlo over 22 labels). Data: $SEQFLOW_DATA, else ../shared/data
// (conll2000_train.h).
#pragma once

#include <random>
#include <utility>
#include <vector>

#include "bench/kernels/conll2000_train.h"
#include "nodes/crf/hybrid_chain.h"
#include "nodes/crf/hybrid_model.h"

namespace seqflow::bench {

inline constexpr int kHybridExperts = 4;

struct HybridWorkload {
  HybridCorpus corpus;
  ExpertTransitions experts;
  GenerativeParams theta;  // the HMMs' MAP estimate (η' = 1e-4) on the whole corpus
  GenerativeCounts counts;
  Eigen::VectorXd gamma;  // 0.1 for every model
  std::vector<int64_t> sizes;
};

inline HybridWorkload MakeHybridWorkload(float signal) {
  HybridWorkload w;
  const Corpus& text = Conll2000Train();
  auto dictionary = std::make_shared<FeatureDictionary>(ValueOrThrow(FeatureDictionary::Compile(ValueOrThrow(TemplateSetByName("hysol_chunking")), text.columns)));
  ThrowIfError(dictionary->Fit(text, 1));
  const GenerativeSymbols symbols(dictionary);
  w.sizes = symbols.vocabulary_sizes();
  HybridCorpus& c = w.corpus;
  c.num_labels = static_cast<int32_t>(text.label_names.size());
  c.offsets.assign(1, 0);
  for (const Sentence& s : text.sentences) c.offsets.push_back(c.offsets.back() + static_cast<int64_t>(s.size()));
  for (const Sentence& s : text.sentences) c.labels.insert(c.labels.end(), s.labels.begin(), s.labels.end());
  std::mt19937 rng(1);
  std::normal_distribution<float> normal(0, 1);
  for (int i = 0; i < kHybridExperts; ++i) {
    RowMatrixXf scores(c.num_tokens(), c.num_labels);
    for (Eigen::Index k = 0; k < scores.size(); ++k) scores.data()[k] = normal(rng);
    if (signal != 0)
      for (Eigen::Index t = 0; t < scores.rows(); ++t) scores(t, c.labels[t]) += signal + 0.5f * static_cast<float>(i);
    c.expert_scores.push_back(std::move(scores));
    RowMatrixXd transition(c.num_labels, c.num_labels);
    for (Eigen::Index k = 0; k < transition.size(); ++k) transition.data()[k] = normal(rng);
    w.experts.push_back(std::move(transition));
  }
  c.symbols = ValueOrThrow(symbols.Symbols(text, c.offsets, 2));
  const Eigen::Index models = kHybridExperts + symbols.num_types();
  w.gamma = Eigen::VectorXd::Constant(models, 0.1);
  w.counts = ObservedCounts(c, w.sizes);
  w.theta = MaximizeGenerative(w.counts, Eigen::VectorXd::Ones(symbols.num_types()), 1e-4);
  return w;
}

}  // namespace seqflow::bench

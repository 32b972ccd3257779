// Streamed UnlabeledHybrid over a resident HybridCorpus for the hybrid-model tests: each block is
// a copy of the corpus' sentences [begin, end) with offsets from 0, as a builder from a Corpus
// would return it; the builds are counted.
#pragma once

#include <cstddef>
#include <memory>

#include "nodes/crf/hybrid_chain.h"

namespace seqflow::testutil {

inline HybridCorpus SliceSentences(const HybridCorpus& corpus, size_t begin, size_t end) {
  HybridCorpus part;
  part.num_labels = corpus.num_labels;
  const int64_t first = corpus.offsets[begin], tokens = corpus.offsets[end] - first;
  for (size_t n = begin; n <= end; ++n) part.offsets.push_back(corpus.offsets[n] - first);
  for (const RowMatrixXf& scores : corpus.expert_scores) part.expert_scores.push_back(scores.middleRows(first, tokens));
  part.symbols = corpus.symbols.middleRows(first, tokens);
  if (!corpus.labels.empty()) part.labels.assign(corpus.labels.begin() + first, corpus.labels.begin() + first + tokens);
  return part;
}

// `builds` (may be null) counts the blocks built.
inline UnlabeledHybrid Streamed(const HybridCorpus& corpus, size_t* builds = nullptr) {
  return UnlabeledHybrid(corpus.num_sentences(), [&corpus, builds](size_t begin, size_t end) -> Result<HybridCorpus> {
    if (builds != nullptr) ++*builds;
    return SliceSentences(corpus, begin, end);
  });
}

}  // namespace seqflow::testutil

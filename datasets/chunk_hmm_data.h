// Chunked sentences (CoNLL-2000's word, POS, chunk columns) from an HMM over chunk tags in which the
// words carry the chunk and the POS column says little, for the HySOL validity case
// (docs/validity.md, pipelines/validity/hysol.yaml).
//   states  B-NP, I-NP, B-VP, I-VP, B-PP, O, with a fixed chunk-like transition table
//   words   each state its own pool of `pool` syllable words with Zipf(1) frequencies (a fifth of
//           each pool shared with the next state's); the labeled sentences see the frequent ones,
//           the unlabeled text teaches the rest
//   POS     NN, VB, IN or `.`, the state's own class with probability `pos_accuracy`, else any
// Sentences continue after each token with probability 14/15. The model is fixed; the sentences
// come from the split's stream ShardRng(seed, split). Pure; the same seed gives the same bytes.
#pragma once

#include <cstdint>
#include <string>

#include "datasets/field_corpus.h"

namespace seqflow {

struct ChunkHmmSpec {
  int pool = 2000;
  double pos_accuracy = 0.5;
};

// `n` sentences of one split as `word<TAB>POS<TAB>chunk` lines, a blank line after each.
std::string SampleChunkConll(const ChunkHmmSpec& spec, uint64_t seed, FieldSplit split, size_t n);
// `n` sentences of one split as text, one sentence a line (read.text).
std::string SampleChunkText(const ChunkHmmSpec& spec, uint64_t seed, FieldSplit split, size_t n);

}  // namespace seqflow

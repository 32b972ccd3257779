// Sentences drawn from an HMM over named states and words, for the validity cases' generators:
// a sentence starts from the initial row and continues after each token with probability `stay`,
// whatever the state (so its end says nothing about its tags).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "datasets/field_corpus.h"
#include "nodes/hmm/hmm_params.h"

namespace seqflow {

struct TaggedHmm {
  HmmParams params;
  std::vector<std::string> state_names;  // [K]
  std::vector<std::string> words;        // [V]
  double stay = 0.8;
};

// `n` sentences of one split (words and their states), from the stream ShardRng(seed, split).
std::vector<FieldSentence> SampleTaggedHmm(const TaggedHmm& hmm, uint64_t seed, FieldSplit split, size_t n);

// The EM_λ validity case's model: `states` states S1..SK and `words` syllable words, initial,
// transition and emission rows flat-Dirichlet draws mixed with the uniform row by `floor`
// (RandomStochasticRows), mean sentence length 5, from ShardRng(seed, 1002).
TaggedHmm SmallRandomHmm(int states, int words, double floor, uint64_t seed);

}  // namespace seqflow

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

// The EM_λ branch-point case's model: states A and B, `words_per_state` syllable words at home in
// each (A's first, then B's, the i-th of each a mirror pair), emitted by the home state with
// total weight `home_mass` and by the other state with the rest, uniformly within each group;
// uniform initial row, transitions staying with probability 0.8. Swapping A and B together with
// each word and its mirror leaves the model unchanged; swapping the states alone does not.
TaggedHmm SwapSymmetricHmm(int words_per_state, double home_mass);

// The sentences, then each again with its two states swapped (0 <-> 1) and its words unchanged:
// a labeled set from which the supervised emission rows of the two states are equal.
std::vector<FieldSentence> WithStatesSwapped(std::vector<FieldSentence> sentences);

}  // namespace seqflow

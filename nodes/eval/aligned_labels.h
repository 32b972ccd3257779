// Gold and predicted labels of the same sentences, put in one label space by name.
//
// A model may order its labels differently from the gold corpus (or know labels the gold never
// uses), so evaluators compare label names, never raw ids. AlignLabels maps both sides to ids
// into one shared name list; after that, ids are equal exactly when the names are.
// Thread safety: plain data.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/base/status.h"
#include "nodes/io/corpus.h"
#include "nodes/io/predictions.h"
#include "stats/chunk_scores.h"

namespace seqflow {

struct AlignedLabels {
  std::vector<std::string> names;               // gold label names, then names only predicted
  std::vector<std::vector<int32_t>> gold;       // [sentence][token], ids into names
  std::vector<std::vector<int32_t>> predicted;  // [sentence][token], same shape as gold
};

// Errors (Invalid) when the gold corpus is unlabeled, when sentence counts or lengths differ,
// or when a predicted id has no name. Sentences are numbered from 1 in messages.
Result<AlignedLabels> AlignLabels(const Corpus& gold, const Predictions& predicted);

// Token and whole-sentence agreement.
struct TokenScores {
  int64_t tokens = 0;
  int64_t correct_tokens = 0;
  int64_t sentences = 0;
  int64_t correct_sentences = 0;  // every token right

  double accuracy() const { return TokenAccuracy(correct_tokens, tokens); }
  double sentence_accuracy() const { return CountRatio(correct_sentences, sentences); }
};

TokenScores ScoreTokens(const AlignedLabels& labels);

}  // namespace seqflow

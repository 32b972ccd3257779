// The evaluators' per-sentence statistics for paired significance tests (the sentences.csv
// attachment, format and tests in stats/significance.h), and the fingerprint that tells
// whether two evaluations scored the same test set.
// Thread safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "nodes/eval/aligned_labels.h"
#include "nodes/eval/segments.h"
#include "nodes/io/corpus.h"
#include "stats/significance.h"

namespace seqflow {

// 32 hex digits over every sentence's words and gold label names, in order: equal exactly when
// two gold corpora have the same sentences with the same labels (up to hash collisions).
std::string GoldFingerprint(const Corpus& gold);

// [sentence] token counts only (correct_tokens, tokens).
std::vector<SentenceStats> TokenSentenceStats(const AlignedLabels& labels);
// [sentence] segment counts and token counts. REQUIRES: scores = ScoreSegments(labels, ...).
std::vector<SentenceStats> SegmentSentenceStats(const SegmentScores& scores, const AlignedLabels& labels);

}  // namespace seqflow

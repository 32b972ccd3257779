// Segment (chunk) precision, recall and F1, the CoNLL way, for every tag encoding.
//
// iob1 / iob2: conlleval's rules (nodes/eval/conlleval.h), which read both encodings, and
// mixtures of them, the same way. runs: a segment is a maximal run of one label, and every
// label ("O" too, e.g. the pronoun tag of the Twitter tag set) is a segment type; this equals
// conlleval on the labels rewritten as B-label / I-label.
// Token accuracy compares label names; for runs that is the plain label accuracy, not the
// accuracy of the rewritten B-/I- tags.
// Thread safety: stateless.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/base/status.h"
#include "nodes/eval/aligned_labels.h"
#include "nodes/eval/conlleval.h"
#include "nodes/io/corpus.h"

namespace seqflow {

struct SegmentScores {
  std::vector<std::string> types;     // [type id]; types[0] is the empty type
  std::vector<ChunkCounts> per_type;  // [type id]
  ChunkCounts total;                  // over all types, the empty one included
  std::vector<ChunkCounts> per_sentence;  // [sentence] over all types; sums to `total` exactly
  TokenScores tokens;
};

// Errors when `encoding` is kNone.
Result<SegmentScores> ScoreSegments(const AlignedLabels& labels, TagEncoding encoding);

// The eval.segments metrics (precision, recall and F1 as stats/chunk_scores.h defines them):
// precision, recall, f1, accuracy, sentence_accuracy, tokens,
// gold_segments, predicted_segments, correct_segments, and precision.T, recall.T, f1.T for
// every non-empty type T seen in gold or predictions.
std::map<std::string, double> SegmentMetrics(const SegmentScores& scores);

}  // namespace seqflow

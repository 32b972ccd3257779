// The sampling protocol of Brefeld, Büscher & Scheffer (2005, §6): from the sentences of 10-40
// tokens, a holdout set, n labeled sentences in which every label of the corpus occurs, and an
// unlabeled pool from the rest, all drawn without replacement.
//
// The eligible sentences are put in the seeded order SeededPermutation (nodes/io/split.h). The
// holdout is the first `holdout` of that order. The labeled part is the first `labeled` of a second
// seeded order of the remaining sentences; when it lacks a label, that order is discarded and the
// next one drawn ("we assure that each label occurs at least once ... otherwise, we discard and
// draw again"), up to `max_redraws` times. The unlabeled pool is the first `unlabeled` (0: all) of
// the sentences left, in the first order. One seed therefore fixes all three parts, and parts drawn
// with one seed are disjoint. A part keeps the corpus's sentence order and label ids.
// Thread safety: stateless.
#pragma once

#include <cstdint>

#include "engine/base/status.h"
#include "nodes/io/corpus.h"

namespace seqflow {

enum class DrawPart { kLabeled, kUnlabeled, kHoldout };
const char* DrawPartName(DrawPart part);  // "labeled", "unlabeled", "holdout"

struct DrawOptions {
  uint64_t seed = 1;
  DrawPart part = DrawPart::kLabeled;
  int64_t min_length = 10;  // tokens, inclusive
  int64_t max_length = 40;
  int64_t holdout = 300;
  int64_t labeled = 10;
  int64_t unlabeled = 0;    // 0: every eligible sentence not in the other parts
  bool every_label = true;  // redraw the labeled part until each label occurs in it
  int64_t max_redraws = 10000;
};

// The requested part. The unlabeled part carries no labels (and no label set). Status::Invalid
// when the corpus is unlabeled, the parts need more eligible sentences than there are, or no
// draw within max_redraws holds every label (naming the corpus and the missing labels).
Result<Corpus> DrawCorpus(const Corpus& corpus, const DrawOptions& options);

}  // namespace seqflow

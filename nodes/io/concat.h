// Concatenating corpora (e.g. the train, dev and test files of one data set, to re-split them
// with seeded `split` nodes): the sentences of every input in input order, labels re-numbered to
// the sorted union of the inputs' label names (the readers' convention).
// REQUIRES nothing; errors (Invalid, naming the sources) when the inputs disagree on columns or
// tag encoding, or some are labeled and some not. Pure.
#pragma once

#include <vector>

#include "engine/base/status.h"
#include "nodes/io/corpus.h"

namespace seqflow {

Result<Corpus> ConcatCorpora(const std::vector<const Corpus*>& parts);

}  // namespace seqflow

// Decoded sentences as a CoNLL column file: the input of conlleval and of the peers' scorers
// (../shared/bench/peers/conlleval.py), and a file a researcher can read, diff or grep.
//
// One token a line: the corpus's columns in order (word first), then the gold label when the
// corpus is labeled, then one column per prediction; a blank line after each sentence. conlleval
// reads the last two columns as gold and guess, so with one prediction the file scores as is.
// Thread safety: stateless.
#pragma once

#include <string>
#include <vector>

#include "engine/base/status.h"
#include "nodes/io/corpus.h"
#include "nodes/io/predictions.h"

namespace seqflow {

enum class ConllSeparator { kSpace, kTab };

// Errors (Invalid): a prediction with another sentence count or sentence length than `data`
// (sentences numbered from 1), a label id without a name, or a field the separator would split
// (with kSpace any whitespace, with kTab a tab or a line break), naming sentence and token.
Result<std::string> FormatConll(const Corpus& data, const std::vector<const Predictions*>& predicted,
                                ConllSeparator separator);

}  // namespace seqflow

// decode.tag: (model: ChainModel, data: Corpus) -> Corpus, the data with one more column holding
// the model's Viterbi labels, and decode.tag_shards: (model, data: Sentences) -> ShardedCorpus, the
// same a shard at a time (internal to nodes/decode; RegisterDecodeNodes calls it).
//
// This is how a tagger trained inside a pipeline supplies a feature column to later nodes, e.g.
// the POS column of unlabeled newswire for HySOL (Suzuki et al. 2007), instead of a script
// writing a tagged file beside the pipeline. The corpus's own gold labels, label names and tag
// encoding pass through untouched: the new column is input text, not a label.
// Thread safety: stateless.
#pragma once

#include <string>

#include "engine/api/registry.h"
#include "engine/base/status.h"
#include "nodes/io/corpus.h"
#include "nodes/io/predictions.h"

namespace seqflow {

void RegisterTagNode(Registry& registry);

// OK when `column` may receive the labels: a new name, or an existing one with `replace`.
// Invalid otherwise, saying how to fix it; "word" (column 0, the words) is never replaceable.
Status CheckLabelColumn(const Corpus& data, const std::string& column, bool replace);

// `data` with the label names of `predicted` as column `column`: appended as the last column, or
// overwritten in place when it exists and `replace`. Errors: CheckLabelColumn's, and Internal
// when `predicted` does not have one label per token of `data`.
Result<Corpus> AddLabelColumn(const Corpus& data, const Predictions& predicted, const std::string& column,
                              bool replace);

}  // namespace seqflow

// A model's scores on labeled data in one call, for nodes that score a model along the way (a
// homotopy path's points, a trainer's iterations against dev or test data): decode, then score
// as eval.segments does.
#pragma once

#include <map>
#include <string>

#include "engine/base/status.h"
#include "nodes/chain/chain_model.h"
#include "nodes/decode/decode_nodes.h"
#include "nodes/io/corpus.h"

namespace seqflow {

// f1, precision, recall and accuracy of `model` decoding `gold` with `method`. Errors: those of
// DecodeCorpus, AlignLabels and ScoreSegments (labels the gold data does not know, ...).
Result<std::map<std::string, double>> ScoreChainModel(const ChainModel& model, const Corpus& gold, DecodeMethod method,
                                                      int threads);

}  // namespace seqflow

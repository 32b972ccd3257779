// Glue between corpora and the EM_λ kernels: symbol and state ids for labeled and unlabeled
// sentences under a reference model, and scoring a model on labeled data.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/base/status.h"
#include "nodes/decode/decode_nodes.h"
#include "nodes/hmm/hmm_model.h"
#include "nodes/io/corpus.h"
#include "nodes/semi_supervised/pom_layout.h"

namespace seqflow {

struct SemiSupervisedData {
  IdSentences words;      // labeled sentences, vocab ids
  IdSentences labels;     // labeled sentences, state ids of the model
  IdSentences unlabeled;  // vocab ids; empty sentences dropped
};

// Labels map to the model's states by name (an unknown label is an error naming it and the
// corpus); words map through the model's vocab. Gold labels of `unlabeled` corpora are ignored.
Result<SemiSupervisedData> PrepareSemiSupervised(const HmmModel& model, const Corpus& labeled,
                                                 const std::vector<const Corpus*>& unlabeled);

// Appends the non-empty sentences of `unlabeled` as vocab ids to `out` (what
// PrepareSemiSupervised does for each unlabeled corpus, here for one shard of one).
void AppendUnlabeledSymbols(const HmmModel& model, const Corpus& unlabeled, IdSentences& out);

// Mean log P(x, y) of the labeled sentences of `gold` under `model` (labels mapped by name).
Result<double> MeanJointLogLikelihood(const HmmModel& model, const Corpus& gold);

}  // namespace seqflow

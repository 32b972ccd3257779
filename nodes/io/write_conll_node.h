// write.conll: (data: Corpus, predicted: [Predictions]) -> Metrics, the sentences with their
// predictions as a CoNLL file in the run record (conll_writer.h), internal to nodes/io
// (RegisterIoNodes calls it).
#pragma once

#include "engine/api/registry.h"

namespace seqflow {

void RegisterWriteConllNode(Registry& registry);

}  // namespace seqflow

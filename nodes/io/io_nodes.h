// The io family: what reads, writes, splits and joins corpora (read.*, write.conll, split, concat,
// draw; read.class_sequences and split.classes for sequence classifiers), with the Corpus and
// ClassSequences artifact types (Predictions, which decoders make, registers with them).
#pragma once

#include "engine/api/registry.h"

namespace seqflow {

void RegisterIoNodes(Registry& registry);

}  // namespace seqflow

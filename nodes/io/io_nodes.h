// The io family: what reads, writes, splits and joins corpora (read.*, write.conll, split, concat,
// draw), with the Corpus artifact type (Predictions, which decoders make, registers with them).
#pragma once

#include "engine/api/registry.h"

namespace seqflow {

void RegisterIoNodes(Registry& registry);

}  // namespace seqflow

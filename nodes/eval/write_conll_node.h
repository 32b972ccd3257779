// write.conll: predictions written beside the decoded sentences as a CoNLL column file in the run
// record (internal to nodes/eval; RegisterEvalNodes calls it).
#pragma once

#include "engine/api/registry.h"

namespace seqflow {

void RegisterWriteConllNode(Registry& registry);

}  // namespace seqflow

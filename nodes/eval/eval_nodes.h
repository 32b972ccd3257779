// The eval family: eval.tokens, eval.segments, eval.compare and eval.classes (Predictions is
// registered by the decode family).
#pragma once

#include "engine/api/registry.h"

namespace seqflow {

void RegisterEvalNodes(Registry& registry);

}  // namespace seqflow

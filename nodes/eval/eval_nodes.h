// The eval family: eval.tokens, eval.segments and eval.compare (Predictions is registered by the
// decode family).
#pragma once

#include "engine/api/registry.h"

namespace seqflow {

void RegisterEvalNodes(Registry& registry);

}  // namespace seqflow

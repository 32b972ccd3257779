// The eval family: eval.tokens and eval.segments (Predictions is registered by the decode family).
#pragma once

#include "engine/api/registry.h"

namespace seqflow {

void RegisterEvalNodes(Registry& registry);

}  // namespace seqflow

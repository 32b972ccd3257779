// The eval family: eval.tokens and eval.segments, plus the Predictions artifact type.
#pragma once

#include "engine/api/registry.h"

namespace seqflow {

void RegisterEvalNodes(Registry& registry);

}  // namespace seqflow

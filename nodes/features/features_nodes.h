// The features family: features.vocab, plus the Vocab artifact type.
#pragma once

#include "engine/api/registry.h"

namespace seqflow {

void RegisterFeaturesNodes(Registry& registry);

}  // namespace seqflow

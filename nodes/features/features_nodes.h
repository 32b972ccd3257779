// The features family: features.vocab and features.templates, plus the Vocab and FeatureSet
// artifact types.
#pragma once

#include "engine/api/registry.h"

namespace seqflow {

void RegisterFeaturesNodes(Registry& registry);

}  // namespace seqflow

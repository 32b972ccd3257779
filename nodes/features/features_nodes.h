// The features family: features.vocab, features.templates, features.views and features.cca, with
// the Vocab, FeatureSet, FeatureViews and Projection artifact types.
#pragma once

#include "engine/api/registry.h"

namespace seqflow {

void RegisterFeaturesNodes(Registry& registry);

}  // namespace seqflow

// features.views: [Corpus] -> FeatureViews, template attributes split into two views for the
// multi-view learners (feature_views.h, view_assignment.h), internal to nodes/features
// (RegisterFeaturesNodes calls it).
#pragma once

#include "engine/api/registry.h"

namespace seqflow {

void RegisterViewsNode(Registry& registry);

}  // namespace seqflow

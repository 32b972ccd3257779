// features.cca: Moments -> Projection, CCA between words and their contexts (context_cca.h), for
// the anchor estimators' QPs; internal to nodes/features (RegisterFeaturesNodes calls it).
#pragma once

#include "engine/api/registry.h"

namespace seqflow {

void RegisterCcaNode(Registry& registry);

}  // namespace seqflow

// Registers the moments family: moments.collect, moments.anchors, moments.anchor_hmm and the
// artifacts Moments and AnchorSet.
#pragma once

#include "engine/api/registry.h"

namespace seqflow {

void RegisterMomentsNodes(Registry& registry);

}  // namespace seqflow

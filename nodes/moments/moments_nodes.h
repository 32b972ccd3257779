// Registers the moments family: moments.collect, moments.anchors, moments.anchor_hmm, the
// self-training baseline hmm.self_train, and the artifacts Moments and Anchors.
#pragma once

#include "engine/api/registry.h"

namespace seqflow {

void RegisterMomentsNodes(Registry& registry);

}  // namespace seqflow

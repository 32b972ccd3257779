// homotopy.probability_one: the probability-one homotopy of a sequence classifier (Ji, Watson &
// Carin, map (19); probability_one.h) from its EM_0 fixed point to λ = 1, and the ClassifierPath
// artifact type; internal to nodes/homotopy (RegisterHomotopyNodes calls it).
#pragma once

#include "engine/api/registry.h"

namespace seqflow {

void RegisterProbabilityOneNode(Registry& registry);

}  // namespace seqflow

// eval.classes: a sequence classifier scored on classified sequences (accuracy, per-class
// precision and recall, confusion), with a paired test against a baseline; internal to nodes/eval
// (RegisterEvalNodes calls it).
#pragma once

#include "engine/api/registry.h"

namespace seqflow {

void RegisterClassesNode(Registry& registry);

}  // namespace seqflow

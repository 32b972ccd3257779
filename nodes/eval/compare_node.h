// eval.compare: several systems' predictions of one gold corpus in one table, each against the
// first with a paired significance test (internal to nodes/eval; RegisterEvalNodes calls it).
#pragma once

#include "engine/api/registry.h"

namespace seqflow {

void RegisterCompareNode(Registry& registry);

}  // namespace seqflow

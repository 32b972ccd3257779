// The hybrid-model family: crf.lop and crf.hysol, plus the HybridModel artifact type.
#pragma once

#include "engine/api/registry.h"

namespace seqflow {

void RegisterHybridNodes(Registry& registry);

}  // namespace seqflow

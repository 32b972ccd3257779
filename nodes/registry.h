// Fills a Registry with every node kind and artifact type seqflow ships.
#pragma once

#include "engine/api/registry.h"

namespace seqflow {

void RegisterAllNodes(Registry& registry);

}  // namespace seqflow

// The io family: read.conll, read.text and split, plus the Corpus artifact type.
#pragma once

#include "engine/api/registry.h"

namespace seqflow {

void RegisterIoNodes(Registry& registry);

}  // namespace seqflow

// Node kinds of the CRF family: crf.train (and the CrfModel artifact type).
#pragma once

#include "engine/api/registry.h"

namespace seqflow {

void RegisterCrfNodes(Registry& registry);

}  // namespace seqflow

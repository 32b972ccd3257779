// draw: () <- Corpus -> Corpus, one part (labeled, unlabeled or holdout) of Brefeld et al.'s
// sampling protocol (draw.h), internal to nodes/io (RegisterIoNodes calls it).
#pragma once

#include "engine/api/registry.h"

namespace seqflow {

void RegisterDrawNode(Registry& registry);

}  // namespace seqflow

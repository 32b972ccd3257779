// The classifier family's kinds: read.class_sequences, split.classes, hmm.classifier,
// homotopy.probability_one, classifier.select, eval.classes (see README.md).
#pragma once

#include "engine/api/registry.h"

namespace seqflow {

void RegisterClassifierNodes(Registry& registry);

}  // namespace seqflow

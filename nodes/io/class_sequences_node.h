// read.class_sequences and split.classes: sequences with their classes (class_sequences.h), read
// from a file and split per class with a seed; internal to nodes/io (RegisterIoNodes calls it).
#pragma once

#include "engine/api/registry.h"

namespace seqflow {

void RegisterClassSequencesNodes(Registry& registry);

}  // namespace seqflow

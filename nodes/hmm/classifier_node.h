// hmm.classifier: one discrete HMM per class and class priors (Ji, Watson & Carin Eq. 11-12) from
// labeled class sequences (classifier_training.h), and the ClassifierModel artifact type; internal
// to nodes/hmm (RegisterHmmNodes calls it).
#pragma once

#include "engine/api/registry.h"

namespace seqflow {

void RegisterClassifierNode(Registry& registry);

}  // namespace seqflow

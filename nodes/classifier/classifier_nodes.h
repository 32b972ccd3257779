// classifier.select: the classifier at one point of a probability-one path (homotopy.probability_one),
// by start, last_lambda_zero, mle, max_entropy or a fixed λ. The rest of Ji, Watson & Carin's
// pipeline lives where its kinds' names say: read.class_sequences and split.classes in io/,
// hmm.classifier in hmm/, homotopy.probability_one in homotopy/, eval.classes in eval/ (README.md).
#pragma once

#include "engine/api/registry.h"

namespace seqflow {

void RegisterClassifierNodes(Registry& registry);

}  // namespace seqflow

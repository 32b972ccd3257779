// The feature-HMM kinds (registered with the moments family): moments.anchor_fhmm and the
// supervised baseline fhmm.supervised. Both output an HmmModel whose emission rows are the
// log-linear distributions over the Vocab's symbols, so every decoder takes them unchanged.
#pragma once

#include <vector>

#include "engine/api/registry.h"

namespace seqflow {

// The inputs of both anchor models (moments.anchor_hmm and moments.anchor_fhmm): moments,
// anchors, labeled sentences and an optional CCA projection.
std::vector<PortSpec> AnchorModelPorts();

KindSpec AnchorFhmmKind();
KindSpec SupervisedFhmmKind();

}  // namespace seqflow

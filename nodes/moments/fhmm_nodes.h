// The feature-HMM kinds (registered with the moments family): moments.anchor_fhmm and the
// supervised baseline fhmm.supervised. Both output an HmmModel whose emission rows are the
// log-linear distributions over the Vocab's symbols, so every decoder takes them unchanged.
#pragma once

#include "engine/api/registry.h"

namespace seqflow {

KindSpec AnchorFhmmKind();
KindSpec SupervisedFhmmKind();

}  // namespace seqflow

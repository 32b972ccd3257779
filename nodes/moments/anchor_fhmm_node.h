// moments.anchor_fhmm: the anchor feature HMM (Marinho et al. 2016, Algorithm 2), internal to
// nodes/moments (RegisterMomentsNodes calls it). Outputs an HmmModel whose emission rows are the
// log-linear distributions over the Vocab's symbols (fhmm/fhmm_from_means.h).
#pragma once

#include "engine/api/registry.h"

namespace seqflow {

KindSpec AnchorFhmmKind();

}  // namespace seqflow

// The feature-HMM family (Marinho et al. 2016, §2.2 and §6.1): HMMs whose emission rows are
// log-linear distributions over the Vocab's symbols, so every decoder takes them unchanged.
//   fhmm.supervised  (data: Corpus (labeled), vocab: Vocab) -> HmmModel
//   fhmm.em          (start: HmmModel, labeled, unlabeled: Corpus[], dev?) -> HmmModel
// The anchor feature HMM (moments.anchor_fhmm) is the moments family's.
#pragma once

#include "engine/api/registry.h"

namespace seqflow {

void RegisterFhmmNodes(Registry& registry);

}  // namespace seqflow

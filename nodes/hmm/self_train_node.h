// hmm.self_train (the moments family's baseline, Marinho et al. 2016, section 6.1), internal to
// nodes/hmm (RegisterHmmNodes calls it).
#pragma once

#include "engine/api/registry.h"

namespace seqflow {

KindSpec SelfTrainKind();

}  // namespace seqflow

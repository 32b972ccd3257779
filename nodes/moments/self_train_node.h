// The hmm.self_train kind (registered with the moments family, whose baseline it is).
#pragma once

#include "engine/api/registry.h"

namespace seqflow {

KindSpec SelfTrainKind();

}  // namespace seqflow

// The fhmm.em kind (registered with the moments family): EM_λ with log-linear (FHMM) emissions
// from a start HmmModel, keeping the iteration with the best dev accuracy.
#pragma once

#include "engine/api/registry.h"

namespace seqflow {

KindSpec FhmmEmKind();

}  // namespace seqflow

// The parameters of the log-linear emission fit (Eq. 25), declared once for every kind that fits
// FHMM emissions: moments.anchor_fhmm, fhmm.supervised, fhmm.em and hmm.self_train.
#pragma once

#include "engine/api/param_table.h"
#include "nodes/fhmm/loglinear_emissions.h"

namespace seqflow {

// regularization (ε), max_iterations (L-BFGS iterations per label).
ParamTable<LogLinearOptions> LogLinearParams();

}  // namespace seqflow

// The build and the kernel variant this process runs: what `seqflow --version` prints and the run
// record keeps.
#pragma once

#include <string>

#include "engine/base/status.h"

namespace seqflow::cli {

// Chooses the kernels' instruction-set variant from SEQFLOW_ISA (null or empty: the best this CPU
// runs). An unknown name, or one this CPU cannot run, is an error naming the choices it can.
Status ApplyIsaChoice(const char* requested);

// "seqflow 0.1.0, numerics portable-1, kernels avx512 (this CPU: baseline avx2 avx512)".
std::string BuildDescription();

}  // namespace seqflow::cli

#include "nodes/optim/mixed_dot.h"

#include "nodes/common/isa.h"

namespace seqflow {

using mixed_dot_internal::MixedDotKernel;

SEQFLOW_ISA_CLONES(double, MixedDot, (const double* a, const double* b, Eigen::Index n), MixedDotKernel, (a, b, n))
SEQFLOW_ISA_CLONES(double, MixedDot, (const float* a, const double* b, Eigen::Index n), MixedDotKernel, (a, b, n))
SEQFLOW_ISA_CLONES(double, MixedDot, (const double* a, const float* b, Eigen::Index n), MixedDotKernel, (a, b, n))
SEQFLOW_ISA_CLONES(double, MixedDot, (const float* a, const float* b, Eigen::Index n), MixedDotKernel, (a, b, n))

}  // namespace seqflow

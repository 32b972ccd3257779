#include "nodes/optim/mixed_dot.h"

#include "nodes/common/isa.h"

namespace seqflow {

using mixed_dot_internal::AddPairTermsKernel;
using mixed_dot_internal::MixedDotKernel;

SEQFLOW_ISA_CLONES(double, MixedDot, (const double* a, const double* b, Eigen::Index n), MixedDotKernel, (a, b, n))
SEQFLOW_ISA_CLONES(double, MixedDot, (const float* a, const double* b, Eigen::Index n), MixedDotKernel, (a, b, n))
SEQFLOW_ISA_CLONES(double, MixedDot, (const double* a, const float* b, Eigen::Index n), MixedDotKernel, (a, b, n))
SEQFLOW_ISA_CLONES(double, MixedDot, (const float* a, const float* b, Eigen::Index n), MixedDotKernel, (a, b, n))

SEQFLOW_ISA_CLONES(void, AddPairTerms,
                   (double* acc, const double* y, const double* s, double c, double a, Eigen::Index n),
                   AddPairTermsKernel, (acc, y, s, c, a, n))
SEQFLOW_ISA_CLONES(void, AddPairTerms,
                   (double* acc, const float* y, const float* s, double c, double a, Eigen::Index n),
                   AddPairTermsKernel, (acc, y, s, c, a, n))

}  // namespace seqflow

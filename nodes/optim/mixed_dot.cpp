#include "nodes/optim/mixed_dot.h"

#include "engine/base/isa.h"

namespace seqflow {

using mixed_dot_internal::CombinePairsKernel;
using mixed_dot_internal::MixedDotKernel;

SEQFLOW_ISA_WIDTH_CLONES(double, MixedDot, (const double* a, const double* b, Eigen::Index n), MixedDotKernel,
                         (a, b, n))
SEQFLOW_ISA_WIDTH_CLONES(double, MixedDot, (const float* a, const double* b, Eigen::Index n), MixedDotKernel, (a, b, n))
SEQFLOW_ISA_WIDTH_CLONES(double, MixedDot, (const double* a, const float* b, Eigen::Index n), MixedDotKernel, (a, b, n))
SEQFLOW_ISA_WIDTH_CLONES(double, MixedDot, (const float* a, const float* b, Eigen::Index n), MixedDotKernel, (a, b, n))

SEQFLOW_ISA_WIDTH_CLONES(double, CombinePairs,
                         (const double* g, double gamma, const double* const* y, const double* const* s,
                          const double* c, const double* a, int m, double* d, double* y_next, Eigen::Index n),
                         CombinePairsKernel, (g, gamma, y, s, c, a, m, d, y_next, n))
SEQFLOW_ISA_WIDTH_CLONES(double, CombinePairs,
                         (const double* g, double gamma, const float* const* y, const float* const* s, const double* c,
                          const double* a, int m, float* d, float* y_next, Eigen::Index n),
                         CombinePairsKernel, (g, gamma, y, s, c, a, m, d, y_next, n))

}  // namespace seqflow

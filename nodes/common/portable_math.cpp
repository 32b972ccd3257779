#include "nodes/common/portable_math.h"

#include <cstring>

#include "engine/base/isa.h"

namespace seqflow {
namespace {

template <int N>
void LogInPlaceKernel(double* x, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    Lanes<8> v;
    std::memcpy(&v, x + i, sizeof v);
    v = LogLanes<8, N>(v);
    std::memcpy(x + i, &v, sizeof v);
  }
  for (; i < n; ++i) x[i] = Log(x[i]);
}

}  // namespace

SEQFLOW_ISA_WIDTH_CLONES(void, LogInPlace, (double* x, size_t n), LogInPlaceKernel, (x, n))

}  // namespace seqflow

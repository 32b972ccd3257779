// What, besides its inputs, decides the bits this build computes. Part of every cache key, so no
// cache mixes artifacts of builds that compute differently.
#pragma once

#include <string_view>

namespace seqflow {

// "portable-N" for the default build: the same bits on every x86-64 CPU (engine/base/isa.h);
// N changes whenever the build's arithmetic does (compiler flags, nodes/common/portable_math.h).
// "native:<instruction sets>" for a -march=native build (SEQFLOW_NATIVE=ON), whose Eigen packets
// and vectorised loops follow the CPU it was compiled on.
std::string_view NumericsId();

}  // namespace seqflow

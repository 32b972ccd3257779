#include "engine/base/numerics.h"

namespace seqflow {

std::string_view NumericsId() {
#ifdef SEQFLOW_NATIVE_BUILD
  return "native:"
#ifdef __AVX512F__
         "avx512f,"
#endif
#ifdef __AVX2__
         "avx2,"
#endif
#ifdef __FMA__
         "fma,"
#endif
#ifdef __AVX__
         "avx,"
#endif
         "sse2";
#else
  return "portable-1";
#endif
}

}  // namespace seqflow

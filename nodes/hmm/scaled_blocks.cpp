#include "nodes/hmm/scaled_blocks.h"

#include <immintrin.h>

#include "engine/base/isa.h"

namespace seqflow {
namespace {

// AVX-512: each row of dn expanded into its D columns by vexpandpd (8 columns a chunk: the read
// ones take dn's next entries, the others 0) and added as whole chunks. The scalar scatter of
// every entry, with its index load and address arithmetic, was a seventh of a map evaluation.
[[gnu::target("arch=x86-64-v4")]] inline void AddScaledRowsExpand(double* acc, ptrdiff_t stride, int D,
                                                                  const double* dn, const std::vector<int>& read,
                                                                  double r) {
  constexpr int kMaxChunks = 16;
  const int chunks = (D + 7) / 8;
  __mmask8 mask[kMaxChunks] = {};  // the read columns of each chunk
  int offset[kMaxChunks];          // where a chunk's entries start in a row of dn
  for (int j : read) mask[j >> 3] = static_cast<__mmask8>(mask[j >> 3] | (1u << (j & 7)));
  for (int q = 0, before = 0; q < chunks; ++q) {
    offset[q] = before;
    before += __builtin_popcount(mask[q]);
  }
  const int m = static_cast<int>(read.size());
  const __m512d scale = _mm512_set1_pd(r);
  for (int i = 0; i < m; ++i) {
    double* row = acc + read[i] * stride;
    const double* in = dn + static_cast<ptrdiff_t>(i) * m;
    for (int q = 0; q < chunks; ++q) {
      if (mask[q] == 0) continue;
      const __m512d add = _mm512_mul_pd(scale, _mm512_maskz_expandloadu_pd(mask[q], in + offset[q]));
      _mm512_storeu_pd(row + 8 * q, _mm512_add_pd(_mm512_loadu_pd(row + 8 * q), add));
    }
  }
}

// Elsewhere: rows of a sequence that reads all D parameters as contiguous (vectorised) sums, else
// entry by entry.
inline void AddScaledRowsScalar(double* acc, ptrdiff_t stride, int D, const double* dn, const std::vector<int>& read,
                                double r) {
  if (read.size() != static_cast<size_t>(D)) return AddScaledBlock(acc, stride, 1, dn, read, r);
  for (int i = 0; i < D; ++i) {
    double* row = acc + i * stride;
    const double* in = dn + static_cast<ptrdiff_t>(i) * D;
    for (int j = 0; j < D; ++j) row[j] += r * in[j];
  }
}

}  // namespace

void AddScaledBlock(double* acc, ptrdiff_t row_stride, ptrdiff_t col_stride, const double* dn,
                    const std::vector<int>& read, double r) {
  const int m = static_cast<int>(read.size());
  for (int i = 0; i < m; ++i) {
    double* row = acc + read[i] * row_stride;
    const double* in = dn + static_cast<ptrdiff_t>(i) * m;
    for (int j = 0; j < m; ++j) row[read[j] * col_stride] += r * in[j];
  }
}

SEQFLOW_ISA_CLONES_CALLING(void, AddScaledRows,
                           (double* acc, ptrdiff_t stride, int D, const double* dn, const std::vector<int>& read,
                            double r),
                           AddScaledRowsExpand, AddScaledRowsScalar, AddScaledRowsScalar,
                           (acc, stride, D, dn, read, r))

}  // namespace seqflow

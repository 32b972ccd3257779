// Adding one sequence's count derivatives N = ∂n/∂θ (classifier_em.cpp's ClassStats::dn),
// weighted by its posterior, into a class's D x D sum. A sequence reads only some parameters
// (`read`, ascending: π, A and its own symbols' emissions), so its N is a [read x read] block of
// the D x D matrix (dn, row-major [m x m], m = read.size()). Adding the block gives the bits of
// adding the whole matrix, zeros included: each entry is one product and one sum, x + ±0 = x, and
// a sum from +0 never becomes −0. So every instruction-set variant (engine/base/isa.h) gives the
// same bits. Pure functions on caller-owned memory.
#pragma once

#include <cstddef>
#include <vector>

namespace seqflow {

// acc[read[i] row_stride + read[j] col_stride] += r dn[i, j]: into a sum of either layout
// (scalar; for the few labeled sequences).
void AddScaledBlock(double* acc, ptrdiff_t row_stride, ptrdiff_t col_stride, const double* dn,
                    const std::vector<int>& read, double r);

// The same into a row-major sum whose rows are `stride` apart.
// REQUIRES: D <= 128; stride >= D rounded up to a multiple of 8 (whole 64-byte chunks per row);
// fastest with acc 64-byte aligned and stride a multiple of 8.
void AddScaledRows(double* acc, ptrdiff_t stride, int D, const double* dn, const std::vector<int>& read, double r);

}  // namespace seqflow

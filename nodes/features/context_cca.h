// CCA between words and their one-hot contexts (Marinho et al. 2016, §5 "CCA projections";
// Dhillon et al. 2015), from the co-occurrence counts of moment_counts.h. With one-hot views the
// covariances are diagonal — D_c = diag(Σ_w M[c, w]) and D_w = diag(Σ_c M[c, w]) — so CCA is the
// SVD of the whitened cross-covariance
//   Ω = D_c^{-1/2} M D_w^{-1/2}          (C x V, sparse)
// and the context projection is P_C = D_c^{-1/2} U_D (C x D) for the top-D left singular vectors.
// The canonical correlations are the singular values (the first is always 1: the constant pair).
//
// Solver: randomized SVD (Halko, Martinsson & Tropp 2011, Alg. 4.4 + 5.1) with `oversample`
// extra columns and `power_iterations` power steps, from a seeded uniform [-1, 1) test matrix;
// the smaller side is re-orthonormalized at every step (CholeskyQR2), the larger once, and the
// singular vectors come from the l x l matrix B Bᵀ, their signs fixed (largest entry positive).
// The same approximation as the textbook algorithm to rounding (tested). A context never seen gets a zero row. Pure; thread safety: stateless.
// Feature contexts (context_features.h) go through unchanged: only M is read, and for binary
// features D_c is the diagonal of the contexts' second moment — the co-firing of one word's
// features is left out, as the one-hot form leaves out that of the previous and next word.
#pragma once

#include <Eigen/Dense>
#include <cstdint>

#include "engine/base/cancel.h"
#include "engine/base/status.h"
#include "nodes/features/moment_counts.h"

namespace seqflow {

struct ContextCcaOptions {
  int dims = 50;  // D
  int oversample = 10;
  int power_iterations = 3;
  uint64_t seed = 1;
};

struct ContextCca {
  Eigen::MatrixXd context_projection;  // [C x D] P_C
  Eigen::VectorXd correlations;        // [D] canonical correlations, descending
};

// Invalid unless 1 <= dims <= min(C, V) and the counts are non-empty; Cancelled when asked.
Result<ContextCca> ComputeContextCca(const MomentCounts& moments, const ContextCcaOptions& options,
                                     const CancelToken& cancel);

}  // namespace seqflow

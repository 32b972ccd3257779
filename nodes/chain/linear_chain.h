// Inference on one linear chain of log-potentials at a time (the lane kernels of this folder run
// kLanes chains at once; prefer them for many sentences):
//   p(y | x) = exp(Σ_t s_t(y_t) + Σ_{t>0} A(y_{t-1}, y_t)) / Z,
// with s [T x K] the per-token label scores (row t = token t) and A [K x K] the label-bigram
// weights (row = previous label). This is the first-order CRF of Lafferty et al. (2001) in the
// form CRF++ / Wapiti use: no separate start/end weights (boundary templates carry that).
//
// Forward-backward runs in probability space with one scale per token (Rabiner 1989 §V.A):
// ψ_t(k) = exp(s_t(k) - max_k s_t(k)), E = exp(A - max A), α_t = ψ_t ∘ (α_{t-1} E) / c_t, so
//   log Z = Σ_t (max_k s_t(k) + log c_t) + (T - 1) max A,
// and with β scaled by the same c_t the marginals are P_t(k) = α_t(k) β_t(k) exactly.
// Pure functions; thread-safe (a ChainWorkspace belongs to one thread).
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <vector>

#include "nodes/chain/forward_backward_lanes.h"

namespace seqflow {

// exp(A - max A), computed once for all the chains that share A. Rows and columns are padded
// with zeros to `stride` (K rounded up to a multiple of 8) so the K-wide inner loops run in whole
// SIMD registers without scalar remainders; padded states carry zero mass throughout.
struct ChainTransition {
  explicit ChainTransition(const Eigen::Ref<const RowMatrixXd>& transition);
  Eigen::Index num_labels = 0;  // K
  Eigen::Index stride = 0;
  RowMatrixXd exp_shifted;  // [stride x stride] E, zero outside [K x K]
  double shift = 0;         // max A
};

// Scratch buffers of ChainForwardBackward, reused across sentences by one thread.
struct ChainWorkspace {
  RowMatrixXd psi, alpha;  // [T x stride]
  Eigen::VectorXd scale;   // [T]
  Eigen::RowVectorXd beta, weighted;
  RowMatrixXd counts;  // [stride x stride]
};

// log Z. When `marginals` is non-null writes P [T x K] there (row-major, K doubles a token);
// when `transition_counts` is non-null adds the expected bigram counts Σ_t P(y_{t-1} = i, y_t = j)
// to it ([K x K] row-major). Returns -inf or NaN when the potentials are not finite (callers treat
// that as a numerical failure). REQUIRES: T >= 1, scores.cols() == K of `transition`.
double ChainForwardBackward(const Eigen::Ref<const RowMatrixXd>& scores, const ChainTransition& transition,
                            ChainWorkspace& work, double* marginals, double* transition_counts);

// The same with a one-off transition and workspace (decoders, tests).
double ChainForwardBackward(const Eigen::Ref<const RowMatrixXd>& scores,
                            const Eigen::Ref<const RowMatrixXd>& transition, RowMatrixXd* marginals,
                            RowMatrixXd* transition_counts);

// The highest-scoring label sequence (ties go to the lower label): ChainViterbiRun on lane 0.
std::vector<int32_t> ChainViterbi(const Eigen::Ref<const RowMatrixXd>& scores,
                                  const Eigen::Ref<const RowMatrixXd>& transition);

// Σ_t s_t(y_t) + Σ_{t>0} A(y_{t-1}, y_t).
double ChainScore(const Eigen::Ref<const RowMatrixXd>& scores, const Eigen::Ref<const RowMatrixXd>& transition,
                  const std::vector<int32_t>& labels);

}  // namespace seqflow

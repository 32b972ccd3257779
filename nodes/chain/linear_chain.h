// Inference on one linear chain of log-potentials at a time (the lane kernels of this folder run
// kLanes chains at once; prefer them for many sentences):
//   p(y | x) = exp(Σ_t s_t(y_t) + Σ_{t>0} A(y_{t-1}, y_t)) / Z,
// with s [T x K] the per-token label scores (row t = token t) and A [K x K] the label-bigram
// weights (row = previous label). This is the first-order CRF of Lafferty et al. (2001) in the
// form CRF++ / Wapiti use: no separate start/end weights (boundary templates carry that).
//
// Each runs lane 0 of the lane kernels, so there is one recurrence to get right.
// Pure functions; thread-safe.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <vector>

#include "nodes/chain/forward_backward_lanes.h"

namespace seqflow {

// log Z, on lane 0 of the lane kernel (forward_backward_lanes.h). When `marginals` is non-null
// writes P [T x K] there; when `transition_counts` is non-null adds the expected bigram counts
// Σ_t P(y_{t-1} = i, y_t = j) to it ([K x K]). Returns -inf or NaN when the potentials are not
// finite (callers treat that as a numerical failure). REQUIRES: T >= 1, scores.cols() == K.
double ChainForwardBackward(const Eigen::Ref<const RowMatrixXd>& scores,
                            const Eigen::Ref<const RowMatrixXd>& transition, RowMatrixXd* marginals,
                            RowMatrixXd* transition_counts);

// The highest-scoring label sequence (ties go to the lower label): OneChainViterbi, the same path
// as ChainViterbiRun's lane 0 at a third of the cost.
std::vector<int32_t> ChainViterbi(const Eigen::Ref<const RowMatrixXd>& scores,
                                  const Eigen::Ref<const RowMatrixXd>& transition);

// Σ_t s_t(y_t) + Σ_{t>0} A(y_{t-1}, y_t).
double ChainScore(const Eigen::Ref<const RowMatrixXd>& scores, const Eigen::Ref<const RowMatrixXd>& transition,
                  const std::vector<int32_t>& labels);

}  // namespace seqflow

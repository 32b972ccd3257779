// Viterbi on one chain of log-potentials with the labels in SIMD lanes, for callers that must
// decode one sentence at a time (the HM perceptron updates after every sentence): lane 0 of an
// 8-chain batch (viterbi_lanes.h) costs what the whole batch does.
//
//   δ_0 = 0 + e_0;  δ_t(j) = max_i [δ_{t-1}(i) + A(i, j)] + e_t(j),
// with e_t = row t of the [T x K] score table and A the [K x K] label-bigram log-potentials (row =
// previous label): the CRF form of viterbi_lanes.h (log π = 0). A step takes the max over i for
// blocks of labels j at once, in the order viterbi_lanes.h's steps take it for one lane (even
// and odd i in two chains, then combined), and the backtrack takes the lowest i attaining
// max_i δ_t(i) + A(i, y_{t+1}). So the path is bit for bit that of ChainViterbiRun on the same
// potentials, ties broken toward the lower label.
// Thread safety: OneChainViterbiModel is immutable and shareable; OneChainViterbiWork belongs to
// one thread.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <vector>

#include "nodes/chain/forward_backward_lanes.h"

namespace seqflow {

struct OneChainViterbiModel {
  static OneChainViterbiModel FromLogPotentials(const Eigen::Ref<const RowMatrixXd>& log_transition);

  int K = 0;
  int stride = 0;             // K rounded up to a multiple of 8: every clone's blocks fit a row
  std::vector<double> log_a;  // [K x stride] A(i, j) at [i * stride + j], zero-padded
};

struct OneChainViterbiWork {
  std::vector<double> delta;  // [T x stride]
};

// Writes the best labelling of the T rows of `scores` ([T x K], row-major) to path[0 .. T) and
// returns its log-potential. REQUIRES: T >= 1; no NaN or +inf among the potentials (-inf is
// fine: an impossible label).
double OneChainViterbi(const OneChainViterbiModel& model, const double* scores, int T, OneChainViterbiWork* work,
                       int32_t* path);

}  // namespace seqflow

// Viterbi decoding of a discrete HMM in log space:
// delta_1(i) = log pi(i) + log B(i, x_1);
// delta_t+1(j) = max_i [delta_t(i) + log A(i, j)] + log B(j, x_t+1); backtrack the argmaxes.
// Ties break toward the lower state index, so results are deterministic.
// REQUIRES: obs non-empty, 0 <= obs[t] < num_symbols().
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "nodes/hmm/hmm_params.h"

namespace seqflow {

// The most probable state sequence; its log joint probability in *log_prob when non-null.
std::vector<int32_t> Viterbi(const HmmParams& hmm, std::span<const int32_t> obs, double* log_prob = nullptr);

}  // namespace seqflow

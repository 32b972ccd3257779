// Supervised (complete-data) estimation of a discrete HMM with add-epsilon smoothing.
//
// With n_init(i) = #sentences starting in state i, n(i, j) = #transitions i -> j and
// n(i, w) = #times state i emits symbol w, the estimate is
//   pi(i)   = (n_init(i) + eps_pi) / sum_i' (n_init(i') + eps_pi)
//   A(i, j) = (n(i, j) + eps_A)    / sum_j' (n(i, j') + eps_A)
//   B(i, w) = (n(i, w) + eps_B)    / sum_w' (n(i, w') + eps_B)
// i.e. eps is added to every cell of a block and each row is normalised. eps = 0 gives the
// maximum-likelihood estimate; a row with no counts at eps = 0 (a state never seen, the MLE is
// undefined there) is set uniform so the result is always a valid HMM. Haffari & Sarkar (2008)
// §5 use eps = .2 for transitions and .05 for emissions as the starting point of their path.
//
// Pure function: no I/O, no threads.
#pragma once

#include <cstdint>
#include <vector>

#include "nodes/hmm/hmm_params.h"

namespace seqflow {

struct HmmSmoothing {
  double initial = 0.2;
  double transition = 0.2;
  double emission = 0.05;
};

// REQUIRES: words.size() == labels.size(); words[s].size() == labels[s].size() for every s;
// 0 <= labels[s][t] < num_states; 0 <= words[s][t] < num_symbols; num_states, num_symbols > 0;
// every eps >= 0. Empty sentences are skipped.
HmmParams EstimateSupervisedHmm(const std::vector<std::vector<int32_t>>& words,
                                const std::vector<std::vector<int32_t>>& labels, int num_states, int num_symbols,
                                const HmmSmoothing& smoothing);

}  // namespace seqflow

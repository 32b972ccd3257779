// Viterbi on a batch of up to L sentences, one sentence per SIMD lane (see nodes/common/lanes.h):
// the engine behind Viterbi (one sentence in lane 0 of kLanes) and ViterbiCorpus's fallback.
//
// Per lane, in log space with E_t(j) = log B(j, x_t) (0 past the lane's end):
//   delta_0 = log pi + E_0;  delta_t(j) = max_i [delta_t-1(i) + log A(i, j)] + E_t(j).
// The forward pass keeps only max values (two vector ops per (i, j), no argmax bookkeeping);
// the backtrack recomputes delta_t(i) + log A(i, s) for the chosen successor s, which reproduces
// the forward maxima bit for bit, and takes the lowest i attaining the maximum. Ties therefore
// break toward the lower state index, and a sentence's path does not depend on its batch. The
// backtrack runs on all lanes at once too, gathering log A(i, s_l) for each lane's own s_l.
// Thread safety: ViterbiModel is immutable and shareable; a ViterbiWork belongs to one thread.
#pragma once

#include <Eigen/Dense>
#include <array>
#include <cstdint>
#include <vector>

#include "nodes/common/lanes.h"
#include "nodes/hmm/hmm_params.h"

namespace seqflow {

// What every batch of one call shares. Holds a reference: `hmm` must outlive it.
struct ViterbiModel {
  // With log_emission_table, log B is computed once for all V symbols (worth it for a corpus);
  // without, each batch takes logs of the columns it uses.
  ViterbiModel(const HmmParams& hmm, bool log_emission_table);

  const HmmParams& hmm;
  int K;
  Eigen::VectorXd log_initial;      // [K]
  Eigen::MatrixXd log_a_ext;        // [K x (K+1)] log A, column-major (log A(i, j) at [j * K + i]),
                                    // then a zero column: the successor past a sentence's end
  Eigen::MatrixXd log_a_row_major;  // [K x K] log A(i, j) at [i * K + j]
  Eigen::MatrixXd log_emission;     // [K x V] log B, or empty
};

template <int L>
struct ViterbiWork {
  std::vector<Lanes<L>> log_emit;  // [K] E_t(j) of the current step
  std::vector<Lanes<L>> delta;     // [T x K]
};

// Decodes the batch: paths[l] receives len(l) states (nullptr for an empty lane) and
// (*log_probs)[l] the log joint probability of that path (-inf when the sentence is impossible;
// the path is then all zeros). REQUIRES: every symbol in [0, V); batch.length >= 1.
template <int L>
void ViterbiRun(const ViterbiModel& model, const LaneBatch<L>& batch, ViterbiWork<L>* work,
                const std::array<int32_t*, L>& paths, std::array<double, L>* log_probs);

}  // namespace seqflow

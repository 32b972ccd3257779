// Decoding a whole corpus on the lane kernels of this folder: the Viterbi path and the posterior
// (SMS) labelling of every sentence, for chains that share one transition matrix and one table of
// per-position potentials. Every decoder of the project (decode.*, the HMM's corpus functions)
// runs these two functions.
//
// ChainTables says how to read the potentials (forward_backward_lanes.h):
//   kProbabilities  table columns are ψ_t = B(:, x_t), `transition` is A (rows sum to 1), `initial`
//                   is π: an HMM. Viterbi takes logs and runs the certified float kernel
//                   (viterbi_f32_lanes.h), redoing the uncertified sentences in double.
//   kLogScores      table columns are log-potentials s_t, `transition` holds bigram log-potentials
//                   (a CRF, a hybrid): Viterbi in double lanes (viterbi_lanes.h).
// Posteriors come from the lane forward-backward in both cases; a token's label is the argmax of
// its marginals, ties to the lower label. Sentences are decoded in fixed shards of 64, longest
// first within a shard, so results do not depend on `threads` (<= 0: all cores).
// Thread safety: pure functions.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <vector>

#include "nodes/chain/viterbi_lanes.h"

namespace seqflow {

enum class ChainScoreKind { kProbabilities, kLogScores };

// The tables the chains of one corpus share. Non-owning: `table` outlives every call using it.
struct ChainTables {
  ChainScoreKind kind = ChainScoreKind::kLogScores;
  Eigen::MatrixXd transition;     // [K x K], row = previous label: A, or log-potentials
  Eigen::VectorXd initial;        // [K] π for kProbabilities (empty: π = 1); empty for kLogScores
  const double* table = nullptr;  // [K x columns] column-major: column c = one token's potentials
  int64_t columns = 0;
  // [(K+1) K K] trigram log-potentials G of a second-order score chain (second_order_lanes.h;
  // `transition` then only gives K), or empty for a first-order chain. When set, the corpus
  // decoders below run second_order_decode.h.
  Eigen::VectorXd trigram;

  int num_labels() const { return static_cast<int>(transition.rows()); }
};

// log π and log A as the Viterbi kernels read them (log π = 0 without initial weights).
ChainViterbiModel ChainViterbiLogModel(const ChainTables& tables);

// The first maximum of each of T rows of K values (row-major at `rows`): ties to the lower label.
std::vector<int32_t> ArgMaxRows(const double* rows, int T, int K);

// The Viterbi path of every sentence; sentences[n][t] is the table column of token t. An empty
// sentence gets an empty path; an impossible one (probability zero) the all-zero path.
// REQUIRES: 0 <= sentences[n][t] < tables.columns; kProbabilities tables hold probabilities.
std::vector<std::vector<int32_t>> ChainViterbiCorpus(const ChainTables& tables,
                                                     const std::vector<std::vector<int32_t>>& sentences, int threads);

// The posterior labelling of every sentence. When `marginals` is non-null it is resized to
// sentences.size() and (*marginals)[n] receives the row-major [T_n x K] posteriors (empty for an
// empty sentence). An impossible sentence gets zero marginals and labels 0.
// REQUIRES: as ChainViterbiCorpus.
std::vector<std::vector<int32_t>> ChainPosteriorCorpus(const ChainTables& tables,
                                                       const std::vector<std::vector<int32_t>>& sentences, int threads,
                                                       std::vector<std::vector<double>>* marginals);

}  // namespace seqflow

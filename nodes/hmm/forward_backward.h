// Forward-backward for a discrete HMM: posteriors, log-likelihood and expected counts.
//
// Scaled recurrences (Rabiner 1989, §V.A): alpha_1(i) = pi(i) B(i, x_1);
// alpha_t+1(j) = sum_i alpha_t(i) A(i, j) B(j, x_t+1), each alpha_t normalised to sum 1 by c_t;
// beta_T = 1, beta_t(i) = sum_j A(i, j) B(j, x_t+1) beta_t+1(j) / c_t+1;
// gamma_t(i) = alpha_t(i) beta_t(i); log p(x) = sum_t log c_t.
// Expected counts: initial gamma_1, transition xi_t(i, j) = alpha_t(i) A(i,j) B(j,x_t+1)
// beta_t+1(j) / c_t+1 summed over t, emission gamma_t(i) added at column x_t.
// The implementation (the chain library's nodes/chain/forward_backward_lanes.h) scales by powers
// of two near 1 / c_t instead, which is exact arithmetic and gives the same posteriors and counts.
//
// Pure functions: no I/O; only the *Corpus functions use threads (nodes/common/parallel.h), in
// fixed shards reduced in a fixed order, so their results do not depend on the thread count.
// A sentence of probability zero gets log p(x) = -inf, zero posteriors and adds no counts.
// Speed: the corpus functions run kLanes sentences per SIMD lane batch;
// prefer them to loops over the single-sentence functions.
// REQUIRES for all: hmm rows are distributions; 0 <= obs[t] < num_symbols(); obs non-empty
// (the *Corpus functions accept empty sentences and skip them); threads <= 0 means all cores.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <span>
#include <vector>

#include "engine/base/process_group.h"
#include "engine/base/status.h"
#include "nodes/hmm/hmm_params.h"

namespace seqflow {

struct ExpectedCounts {
  Eigen::VectorXd initial;     // [K]
  Eigen::MatrixXd transition;  // [K x K]
  Eigen::MatrixXd emission;    // [K x V]
  double log_likelihood = 0;   // sum over sentences of log p(x)
  int64_t tokens = 0;          // tokens seen, including those of zero-probability sentences

  // Zeroed counts for K states and V symbols.
  static ExpectedCounts Zero(int K, int V);
  // this += weight * other (log_likelihood and tokens add unweighted).
  void Add(const ExpectedCounts& other, double weight = 1.0);
};

// The counts of tagged sentences (initial, transitions, emissions, tokens; log_likelihood 0).
// REQUIRES: labels[s] and words[s] of one length, labels in [0, num_states), words in
// [0, num_symbols).
ExpectedCounts LabeledSentenceCounts(int num_states, int num_symbols, const std::vector<std::vector<int32_t>>& words,
                                     const std::vector<std::vector<int32_t>>& labels);

// Returns log p(obs); fills `gamma` [T x K] with the state posteriors when non-null.
// Returns -infinity when obs has probability zero under the model.
double ForwardBackward(const HmmParams& hmm, std::span<const int32_t> obs, Eigen::MatrixXd* gamma);

// Adds `weight` times the expected counts of one sentence to `counts` (log_likelihood and
// tokens unweighted, as in Add). Returns log p(obs).
double AccumulateExpectedCounts(const HmmParams& hmm, std::span<const int32_t> obs, double weight,
                                ExpectedCounts* counts);

// The fixed shards of CorpusExpectedCounts: sentences [g * kExpectedCountShardSentences, ...).
inline constexpr size_t kExpectedCountShardSentences = 64;

// Sum of expected counts over `sentences`, computed on `threads` threads in fixed shards whose
// partial sums are added in shard order: bit-identical for any thread count.
ExpectedCounts CorpusExpectedCounts(const HmmParams& hmm, const std::vector<std::vector<int32_t>>& sentences,
                                    int threads);
// The same over the processes of `group` too (null: this one), every rank reading the sentences
// of the shards it maps (the others may be left empty there) and receiving the whole sum: the shards are spread over the ranks and added in the same order
// (nodes/common/distributed_shards.h), so the bits do not depend on the process count either.
// Errors: the group's.
Result<ExpectedCounts> CorpusExpectedCounts(const HmmParams& hmm, const std::vector<std::vector<int32_t>>& sentences,
                                            int threads, const ProcessGroup* group);

// Per-position argmax of the posteriors (the "sequence of most probable states", SMS); ties go
// to the lower state. Fills `gamma` [T x K] when non-null.
std::vector<int32_t> PosteriorDecode(const HmmParams& hmm, std::span<const int32_t> obs,
                                     Eigen::MatrixXd* gamma = nullptr);

// PosteriorDecode of every sentence on `threads` threads; an empty sentence gives an empty
// labelling (and a [0 x K] gamma). When `gammas` is non-null it is resized to sentences.size()
// and (*gammas)[s] receives the [T_s x K] posteriors of sentence s.
std::vector<std::vector<int32_t>> PosteriorDecodeCorpus(const HmmParams& hmm,
                                                        const std::vector<std::vector<int32_t>>& sentences, int threads,
                                                        std::vector<Eigen::MatrixXd>* gammas);

}  // namespace seqflow

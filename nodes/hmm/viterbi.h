// Viterbi decoding of a discrete HMM in log space:
// delta_1(i) = log pi(i) + log B(i, x_1);
// delta_t+1(j) = max_i [delta_t(i) + log A(i, j)] + log B(j, x_t+1); backtrack the argmaxes.
// Ties break toward the lower state index, so results are deterministic. A sentence of
// probability zero gets log probability -inf and the all-zero path.
// Viterbi runs the chain library's double-precision lane kernel (nodes/chain/viterbi_lanes.h) on
// one sentence. ViterbiCorpus is the chain library's corpus Viterbi on the HMM's tables
// (nodes/chain/chain_decode.h): log B once, 16 sentences per SIMD register in single precision
// with a certificate, the rare uncertified sentences redone in double. Its paths are always those
// of Viterbi, about 15x faster. Prefer it for many sentences.
// REQUIRES: hmm rows are distributions; obs non-empty (ViterbiCorpus accepts empty sentences);
// 0 <= obs[t] < num_symbols(); threads <= 0 means all cores.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "nodes/chain/chain_decode.h"
#include "nodes/hmm/hmm_params.h"

namespace seqflow {

// The HMM as the chain library reads it: probabilities, column v of the table = B(:, v).
// Points into `hmm`, which must outlive the result.
ChainTables HmmChainTables(const HmmParams& hmm);

// The most probable state sequence; its log joint probability in *log_prob when non-null.
std::vector<int32_t> Viterbi(const HmmParams& hmm, std::span<const int32_t> obs, double* log_prob = nullptr);

// Viterbi of every sentence on `threads` threads (fixed shards; output independent of threads).
// An empty sentence gives an empty path.
std::vector<std::vector<int32_t>> ViterbiCorpus(const HmmParams& hmm,
                                                const std::vector<std::vector<int32_t>>& sentences, int threads);

}  // namespace seqflow

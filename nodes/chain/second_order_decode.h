// Decoding a whole corpus of second-order score chains (ChainTables with a trigram tensor,
// second_order_lanes.h) back to single tags: the Viterbi path over tag pairs, and the posterior
// labelling from the lane forward-backward's tag marginals. chain_decode.h's corpus decoders
// call these when tables.trigram is set, so every decoder takes a second-order model unchanged.
// Sentences are decoded in fixed shards, so results do not depend on `threads`.
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <vector>

#include "nodes/chain/chain_decode.h"

namespace seqflow {

// REQUIRES: tables.kind == kLogScores, tables.trigram.size() == TrigramSize(K), every column id
// inside the table.
std::vector<std::vector<int32_t>> SecondOrderViterbiCorpus(const ChainTables& tables,
                                                           const std::vector<std::vector<int32_t>>& sentences,
                                                           int threads);

// As ChainPosteriorCorpus: (*marginals)[n] receives the row-major [T_n x K] tag marginals.
std::vector<std::vector<int32_t>> SecondOrderPosteriorCorpus(const ChainTables& tables,
                                                             const std::vector<std::vector<int32_t>>& sentences,
                                                             int threads,
                                                             std::vector<std::vector<double>>* marginals);

}  // namespace seqflow

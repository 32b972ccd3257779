#include "nodes/chain/second_order_decode.h"

#include <algorithm>
#include <array>

#include "nodes/chain/lane_posterior_corpus.h"
#include "nodes/chain/second_order_lanes.h"
#include "nodes/common/parallel.h"

namespace seqflow {
std::vector<std::vector<int32_t>> SecondOrderViterbiCorpus(const ChainTables& tables,
                                                           const std::vector<std::vector<int32_t>>& sentences,
                                                           int threads) {
  const int K = tables.num_labels();
  std::vector<std::vector<int32_t>> paths(sentences.size());
  std::vector<std::vector<double>> slot_rows(OrderedSlots(threads));
  ParallelShardsOrdered(
      sentences.size(), kDecodeShardSize, threads, slot_rows.size(),
      [&](size_t, size_t begin, size_t end, size_t slot) {
        std::vector<double>& rows = slot_rows[slot];
        for (size_t n = begin; n < end; ++n) {
          const std::vector<int32_t>& columns = sentences[n];
          if (columns.empty()) continue;
          rows.resize(columns.size() * K);
          for (size_t t = 0; t < columns.size(); ++t) {
            std::copy_n(tables.table + static_cast<int64_t>(columns[t]) * K, K, rows.data() + t * K);
          }
          paths[n] = SecondOrderViterbi(rows.data(), static_cast<int>(columns.size()), K, tables.trigram.data());
        }
      },
      [](size_t, size_t) {});
  return paths;
}

std::vector<std::vector<int32_t>> SecondOrderPosteriorCorpus(const ChainTables& tables,
                                                             const std::vector<std::vector<int32_t>>& sentences,
                                                             int threads,
                                                             std::vector<std::vector<double>>* marginals) {
  const int K = tables.num_labels();
  const SecondOrderTransition transition = SecondOrderTransition::FromLogPotentials(tables.trigram, K);
  return LanePosteriorCorpus<SecondOrderWork>(
      sentences, K, threads, marginals,
      [&](const LaneBatch<kLanes>& batch, SecondOrderWork& work, const std::array<double*, kLanes>& rows) {
        SecondOrderForwardBackward<double>(tables.table, transition, batch, work, rows, {}, nullptr);
      });
}

}  // namespace seqflow

#include "nodes/chain/second_order_decode.h"

#include <algorithm>
#include <array>

#include "nodes/chain/second_order_lanes.h"
#include "nodes/common/parallel.h"

namespace seqflow {
namespace {

constexpr size_t kShardSize = 64;

}  // namespace

std::vector<std::vector<int32_t>> SecondOrderViterbiCorpus(const ChainTables& tables,
                                                           const std::vector<std::vector<int32_t>>& sentences,
                                                           int threads) {
  const int K = tables.num_labels();
  std::vector<std::vector<int32_t>> paths(sentences.size());
  std::vector<std::vector<double>> slot_rows(OrderedSlots(threads));
  ParallelShardsOrdered(
      sentences.size(), kShardSize, threads, slot_rows.size(),
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
  std::vector<std::vector<int32_t>> labels(sentences.size());
  if (marginals != nullptr) marginals->assign(sentences.size(), {});
  struct Slot {
    SecondOrderWork work;
    std::array<std::vector<double>, kLanes> rows;  // [T x K] row-major per lane
  };
  std::vector<Slot> slots(OrderedSlots(threads));
  auto decode = [&](size_t, size_t begin, size_t end, size_t slot_index) {
    Slot& slot = slots[slot_index];
    const std::vector<size_t> order = LengthSortedOrder(sentences, begin, end);
    for (size_t first = 0; first < order.size(); first += kLanes) {
      LaneBatch<kLanes> batch;
      std::array<double*, kLanes> rows{};
      for (int l = 0; l < kLanes && first + l < order.size(); ++l) {
        batch.obs[l] = sentences[order[first + l]];
        slot.rows[l].resize(static_cast<size_t>(batch.len(l)) * K);
        rows[l] = slot.rows[l].data();
      }
      batch.length = batch.len(0);  // longest first
      SecondOrderForwardBackward<double>(tables.table, transition, batch, slot.work, rows, {}, nullptr);
      for (int l = 0; l < kLanes && rows[l] != nullptr; ++l) {
        const size_t s = order[first + l];
        labels[s] = ArgMaxRows(rows[l], batch.len(l), K);
        if (marginals != nullptr) (*marginals)[s] = slot.rows[l];
      }
    }
  };
  ParallelShardsOrdered(sentences.size(), kShardSize, threads, slots.size(), decode, [](size_t, size_t) {});
  return labels;
}

}  // namespace seqflow

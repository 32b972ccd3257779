// The corpus loop of posterior decoding on lanes, shared by the first- and second-order chains
// (chain_decode.cpp, second_order_decode.cpp): sentences in fixed shards of kDecodeShardSize,
// longest first within a shard, kLanes to a batch; each batch's [T x K] marginals per lane come
// from `forward_backward(batch, work, rows)` and a token's label is their argmax (ties to the
// lower label). Results do not depend on `threads`.
// Thread safety: one Work per slot; `forward_backward` must be safe to call from several threads.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "nodes/chain/chain_decode.h"
#include "nodes/common/lanes.h"
#include "nodes/common/parallel.h"

namespace seqflow {

inline constexpr size_t kDecodeShardSize = 64;

// `forward_backward(const LaneBatch<kLanes>&, Work&, const std::array<double*, kLanes>& rows)`
// fills rows[l] (null past the batch's last lane) with lane l's marginals.
template <class Work, class ForwardBackward>
std::vector<std::vector<int32_t>> LanePosteriorCorpus(const std::vector<std::vector<int32_t>>& sentences, int K,
                                                      int threads, std::vector<std::vector<double>>* marginals,
                                                      const ForwardBackward& forward_backward) {
  std::vector<std::vector<int32_t>> labels(sentences.size());
  if (marginals != nullptr) marginals->assign(sentences.size(), {});
  struct Slot {
    Work work;
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
      forward_backward(batch, slot.work, rows);
      for (int l = 0; l < kLanes && rows[l] != nullptr; ++l) {
        const size_t s = order[first + l];
        labels[s] = ArgMaxRows(rows[l], batch.len(l), K);
        if (marginals != nullptr) (*marginals)[s] = slot.rows[l];
      }
    }
  };
  ParallelShardsOrdered(sentences.size(), kDecodeShardSize, threads, slots.size(), decode, [](size_t, size_t) {});
  return labels;
}

}  // namespace seqflow

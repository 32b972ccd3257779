#include "nodes/common/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <vector>

namespace seqflow {
namespace parallel_test {

struct Shard {
  size_t begin, end;
  bool operator==(const Shard&) const = default;
};

std::vector<Shard> ShardsSeen(size_t n, size_t shard_size, int threads) {
  std::vector<Shard> seen(NumShards(n, shard_size), Shard{0, 0});
  ParallelShards(n, shard_size, threads, [&](size_t shard, size_t begin, size_t end) { seen[shard] = {begin, end}; });
  return seen;
}

TEST(ParallelShards, CoverTheRangeInFixedShardsWhateverTheThreads) {
  const std::vector<Shard> one = ShardsSeen(103, 10, 1);
  ASSERT_EQ(one.size(), 11u);
  for (size_t s = 0; s < one.size(); ++s) {
    EXPECT_EQ(one[s].begin, s * 10);
    EXPECT_EQ(one[s].end, std::min<size_t>(s * 10 + 10, 103));
  }
  EXPECT_EQ(ShardsSeen(103, 10, 2), one);
  EXPECT_EQ(ShardsSeen(103, 10, 7), one);
}

TEST(ParallelShards, EmptyRangeCallsNothing) {
  std::atomic<int> calls{0};
  ParallelShards(0, 4, 2, [&](size_t, size_t, size_t) { ++calls; });
  EXPECT_EQ(calls.load(), 0);
}

// A float sum whose value depends on the order of additions: reduced in shard order it must be
// the same bits for every thread count and slot count.
float OrderedSum(int threads, size_t slots) {
  const size_t n = 10000;
  std::vector<float> partial(slots);
  std::vector<size_t> reduce_order;
  float total = 0;
  ParallelShardsOrdered(
      n, 37, threads, slots,
      [&](size_t, size_t begin, size_t end, size_t slot) {
        float s = 0;
        for (size_t i = begin; i < end; ++i) s += 1.0f / static_cast<float>(i + 1) * ((i % 3 == 0) ? -1e3f : 1.0f);
        partial[slot] = s;
      },
      [&](size_t shard, size_t slot) {
        reduce_order.push_back(shard);
        total += partial[slot];
      });
  for (size_t s = 0; s < reduce_order.size(); ++s) EXPECT_EQ(reduce_order[s], s);
  EXPECT_EQ(reduce_order.size(), NumShards(n, 37));
  return total;
}

TEST(ParallelShardsOrdered, ReducesInShardOrderSoSumsAreBitIdentical) {
  const float reference = OrderedSum(1, 1);
  EXPECT_EQ(OrderedSum(2, OrderedSlots(2)), reference);
  EXPECT_EQ(OrderedSum(4, 2), reference);
  EXPECT_EQ(OrderedSum(8, OrderedSlots(8)), reference);
}

}  // namespace parallel_test
}  // namespace seqflow

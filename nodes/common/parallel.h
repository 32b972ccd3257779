// Deterministic data parallelism for kernels' callers: work is cut into fixed shards (their
// boundaries depend only on n and shard_size, never on the thread count), shards run on up to
// `threads` threads, and callers reduce per-shard results in shard order. Results are therefore
// bit-identical for any thread count.
//
// threads <= 0 means all hardware threads. REQUIRES: shard_size >= 1.
// Exceptions thrown by a callback propagate to the caller (remaining shards may be skipped).
#pragma once

#include <cstddef>
#include <functional>

namespace seqflow {

// Calls body(shard, begin, end) for shard = 0 .. ceil(n / shard_size) - 1 covering [0, n).
void ParallelShards(size_t n, size_t shard_size, int threads,
                    const std::function<void(size_t shard, size_t begin, size_t end)>& body);
inline size_t NumShards(size_t n, size_t shard_size) { return (n + shard_size - 1) / shard_size; }

// Map-reduce over the same shards with bounded memory. map(shard, begin, end, slot) runs
// concurrently; reduce(shard, slot) runs after map(shard) returns, strictly in shard order and one
// call at a time, so reducing into a single accumulator gives the same floating-point result for
// any thread count. slot = shard % slots, and no two shards between map and reduce share a slot:
// callers keep one result buffer (and scratch space) per slot, so memory is O(slots), not O(n).
// REQUIRES: slots >= 1. Use OrderedSlots(threads) unless memory per slot is large.
void ParallelShardsOrdered(size_t n, size_t shard_size, int threads, size_t slots,
                           const std::function<void(size_t shard, size_t begin, size_t end, size_t slot)>& map,
                           const std::function<void(size_t shard, size_t slot)>& reduce);
// Enough slots to keep `threads` threads busy while the serial reduce catches up.
size_t OrderedSlots(int threads);

}  // namespace seqflow

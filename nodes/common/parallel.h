// Deterministic data parallelism for kernels' callers: work is cut into fixed shards (their
// boundaries depend only on n and shard_size, never on the thread count), shards run on up to
// `threads` threads, and callers reduce per-shard results in shard order. Results are therefore
// bit-identical for any thread count.
#pragma once

#include <cstddef>
#include <functional>

namespace seqflow {

// Calls body(shard, begin, end) for shard = 0 .. ceil(n / shard_size) - 1 covering [0, n).
void ParallelShards(size_t n, size_t shard_size, int threads,
                    const std::function<void(size_t shard, size_t begin, size_t end)>& body);
inline size_t NumShards(size_t n, size_t shard_size) { return (n + shard_size - 1) / shard_size; }

}  // namespace seqflow

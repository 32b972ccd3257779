// Deterministic data parallelism across processes (DESIGN §10): ParallelShardsOrdered's fixed
// shards, spread over the ranks of a ProcessGroup, reduced in the same global shard order as in
// one process. Results are therefore bit-identical for any number of processes and threads.
//
// Shard g (the shards of ParallelShards: boundaries depend only on n and shard_size) is mapped by
// rank g % P, on that rank's threads. Ranks other than 0 encode each mapped shard's result and
// send it to rank 0 as soon as it is reduced locally (in their shard order, so at most `slots`
// results wait in memory); rank 0 reduces its own shards and the received ones strictly in global
// shard order, as ParallelShardsOrdered would have. The caller then broadcasts what it reduced
// (ProcessGroup::Broadcast), so every rank goes on with the same bits.
//
// The cost: every shard's result crosses to rank 0 (for the HMM E-step, each token's posterior
// row), the price of reproducing one process's summation order exactly. With P = 1 (or a null
// group) this is ParallelShardsOrdered.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "engine/base/process_group.h"
#include "engine/base/status.h"

namespace seqflow {

struct DistributedShardsFns {
  // Runs concurrently: fills slot `slot` with shard `shard`'s result.
  std::function<void(size_t shard, size_t begin, size_t end, size_t slot)> map;
  // Ranks other than 0: the bytes of slot `slot`'s result.
  std::function<std::string(size_t slot)> encode;
  // Rank 0: a received result into slot `slot` (always the extra slot, index `slots`); an error
  // for bytes it cannot read.
  std::function<Status(const std::string& bytes, size_t slot)> decode;
  // Rank 0 only, one call at a time, in global shard order.
  std::function<void(size_t shard, size_t slot)> reduce;
};

// REQUIRES: slots >= 1; with more than one process the caller keeps slots + 1 result buffers
// (the extra one receives). Errors: the group's (a failed send or receive) and decode's.
Status DistributedShardsOrdered(const ProcessGroup* group, size_t n, size_t shard_size, int threads, size_t slots,
                                const DistributedShardsFns& fns);

// How many processes share the work (1 for a null group).
inline int GroupSize(const ProcessGroup* group) { return group == nullptr ? 1 : group->size(); }

// Whether this process maps any of the shards (of `shard_size` items) that items [begin, end)
// fall in: a caller that loads its data in pieces loads only those (the others' items may be left
// empty, as map never reads them).
inline bool MapsAnyShardOf(const ProcessGroup* group, size_t begin, size_t end, size_t shard_size) {
  if (group == nullptr || group->size() <= 1) return true;
  const auto processes = static_cast<size_t>(group->size()), rank = static_cast<size_t>(group->rank());
  for (size_t shard = begin / shard_size; shard * shard_size < end; ++shard)
    if (shard % processes == rank) return true;
  return false;
}

}  // namespace seqflow

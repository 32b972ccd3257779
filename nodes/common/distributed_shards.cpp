#include "nodes/common/distributed_shards.h"

#include <algorithm>

#include "nodes/common/parallel.h"

namespace seqflow {

Status DistributedShardsOrdered(const ProcessGroup* group, size_t n, size_t shard_size, int threads, size_t slots,
                                const DistributedShardsFns& fns) {
  const size_t processes = static_cast<size_t>(GroupSize(group));
  if (processes == 1) {
    ParallelShardsOrdered(n, shard_size, threads, slots, fns.map, fns.reduce);
    return Status::Ok();
  }
  const size_t rank = static_cast<size_t>(group->rank());
  const size_t shards = NumShards(n, shard_size);
  // This rank's shards are rank, rank + P, rank + 2P, ...: local shard j is global j * P + rank.
  const size_t local = shards > rank ? (shards - rank + processes - 1) / processes : 0;
  auto global_of = [&](size_t j) { return j * processes + rank; };
  Status failed;
  size_t next = 0;  // rank 0: the next global shard to reduce
  const size_t received = slots;
  // Rank 0: reduces every shard before `stop` that another rank mapped, receiving it first.
  auto reduce_remote_until = [&](size_t stop) {
    for (; next < stop && failed.ok(); ++next) {
      Result<std::string> bytes = group->Receive(static_cast<int>(next % processes));
      if (!bytes.ok()) {
        failed = bytes.status();
        return;
      }
      failed = fns.decode(*bytes, received);
      if (failed.ok()) fns.reduce(next, received);
    }
  };
  ParallelShardsOrdered(
      local, 1, threads, slots,
      [&](size_t j, size_t, size_t, size_t slot) {
        const size_t g = global_of(j);
        fns.map(g, g * shard_size, std::min(n, (g + 1) * shard_size), slot);
      },
      [&](size_t j, size_t slot) {
        if (!failed.ok()) return;
        const size_t g = global_of(j);
        if (rank != 0) {
          failed = group->Send(0, fns.encode(slot));
          return;
        }
        reduce_remote_until(g);
        if (!failed.ok()) return;
        fns.reduce(g, slot);
        next = g + 1;
      });
  if (rank == 0) reduce_remote_until(shards);
  return failed;
}

}  // namespace seqflow

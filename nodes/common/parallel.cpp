#include "nodes/common/parallel.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_pipeline.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <thread>

namespace seqflow {
namespace {

// More threads than cores cannot help, and TBB warns when asked for them.
int EffectiveThreads(int threads) {
  const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  return threads > 0 ? std::min(threads, cores) : cores;
}

// Runs `work` with `threads` workers. Inside an arena that already has them (a node body running
// on the executor's arena) the work joins that arena: a nested arena would have to wait for the
// outer arena's idle workers to migrate, and in practice ran nearly serially.
template <class Work>
void InArena(int threads, Work&& work) {
  if (tbb::this_task_arena::max_concurrency() >= threads) {
    work();
    return;
  }
  tbb::task_arena arena(threads);
  arena.execute(work);
}

}  // namespace

void ParallelShards(size_t n, size_t shard_size, int threads,
                    const std::function<void(size_t shard, size_t begin, size_t end)>& body) {
  const size_t shards = NumShards(n, shard_size);
  auto run = [&](size_t s) { body(s, s * shard_size, std::min(n, (s + 1) * shard_size)); };
  threads = EffectiveThreads(threads);
  if (threads == 1 || shards <= 1) {
    for (size_t s = 0; s < shards; ++s) run(s);
    return;
  }
  InArena(threads, [&] {
    // One shard per task: shards are already the unit of balance.
    tbb::parallel_for(
        tbb::blocked_range<size_t>(0, shards, 1),
        [&](const tbb::blocked_range<size_t>& r) {
          for (size_t s = r.begin(); s < r.end(); ++s) run(s);
        },
        tbb::simple_partitioner());
  });
}

size_t OrderedSlots(int threads) { return 2 * static_cast<size_t>(EffectiveThreads(threads)); }

void ParallelShardsOrdered(size_t n, size_t shard_size, int threads, size_t slots,
                           const std::function<void(size_t shard, size_t begin, size_t end, size_t slot)>& map,
                           const std::function<void(size_t shard, size_t slot)>& reduce) {
  const size_t shards = NumShards(n, shard_size);
  auto run_map = [&](size_t s) { map(s, s * shard_size, std::min(n, (s + 1) * shard_size), s % slots); };
  threads = EffectiveThreads(threads);
  if (threads == 1 || shards <= 1) {
    for (size_t s = 0; s < shards; ++s) {
      run_map(s);
      reduce(s, s % slots);
    }
    return;
  }
  // Shards enter and leave the pipeline in order and at most `slots` are inside at once, so the
  // shards in flight are consecutive and their slots (shard % slots) are distinct.
  InArena(threads, [&] {
    size_t next = 0;
    tbb::parallel_pipeline(
        slots, tbb::make_filter<void, size_t>(tbb::filter_mode::serial_in_order, [&](tbb::flow_control& fc) -> size_t {
                 if (next == shards) fc.stop();
                 return next++;
               }) & tbb::make_filter<size_t, size_t>(tbb::filter_mode::parallel, [&](size_t s) {
                 run_map(s);
                 return s;
               }) & tbb::make_filter<size_t, void>(tbb::filter_mode::serial_in_order, [&](size_t s) {
                 reduce(s, s % slots);
               }));
  });
}

}  // namespace seqflow

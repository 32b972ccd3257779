// MemoryBudget: how much memory the nodes computing at once in one process may declare together
// (KindSpec's `memory_mb`, "peak memory on the project's real data sets"), so that two large
// nodes do not run side by side on a machine that cannot hold both.
//
// A node computes while it holds its share, min(declared, budget): one that declares more than
// the whole budget holds all of it and so runs alone. A request is granted as soon as it fits
// beside what is held, the waiting ones in arrival order: a small node (a decoder) overtakes a
// large one waiting for room, because the large one would keep it, and the model it would let
// go, waiting through the whole of the node that holds the room (CoNLL-2000 HySOL cold: a
// finished HySOL model kept through the next HySOL node, bench/RESULTS.md). A large node waits at
// most until what runs beside it finishes and no smaller ready node fits: in a pipeline, a
// finite wait. The budget decides only when a node starts, never what it computes: results are
// the same bits for every budget.
// Thread safety: all methods may be called concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <mutex>
#include <utility>

namespace seqflow {

class MemoryBudget {
 public:
  // REQUIRES: budget_mb >= 1.
  explicit MemoryBudget(int64_t budget_mb) : budget_mb_(budget_mb) {}

  int64_t budget_mb() const { return budget_mb_; }
  // What a node declaring `declared_mb` holds while it computes.
  int64_t Share(int64_t declared_mb) const;

  // Takes `mb` (a Share) now when it fits beside what is held; false otherwise.
  bool TryAcquire(int64_t mb);
  // Takes `mb` when it fits, then calls `granted`: on this thread before returning when that is
  // now, else from the Release that makes room.
  void Acquire(int64_t mb, std::function<void()> granted);
  // Gives back `mb` and grants the waiting requests that now fit, in arrival order.
  void Release(int64_t mb);

  int64_t held_mb() const;

 private:
  const int64_t budget_mb_;
  mutable std::mutex mu_;
  int64_t held_mb_ = 0;
  std::list<std::pair<int64_t, std::function<void()>>> waiting_;  // in arrival order
};

// The machine's physical memory in MB (the default budget of `seqflow run`); 0 if unknown.
int64_t PhysicalMemoryMb();

}  // namespace seqflow

// CacheLeases: who uses a cache right now, so that `cache gc` never removes an entry, piece,
// checkpoint or final state that a live run or task holds or is about to use.
//
// Every `seqflow run` and `run-node` holds a run lease for its whole life: a lock file
// <cache>/leases/run-<host>-<pid>-<n>.lock, kept fresh and judged stale exactly as the key locks
// (key_locks.h: a dead process on this host, or no heartbeat for stale_seconds elsewhere). `cache
// gc` takes <cache>/leases/gc.lock, then looks for live run leases: if there is one it gives the
// lock back and removes nothing. A run that finds gc's lock held waits until it is gone.
//
// Each side first makes its own file, then looks for the other's; so of a run and a gc that start
// together, at least one sees the other. A gc that sees a run backs off; a run that sees a gc
// waits, and since a gc never waits, neither waits for ever.
//
// Thread safety: all methods may be called concurrently.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/base/env.h"
#include "engine/base/status.h"
#include "engine/cache/key_locks.h"

namespace seqflow {

class CacheLeases {
 public:
  CacheLeases(const std::string& cache_dir, Env* env, KeyLockOptions options = {});

  // A run's lease, held until it is destroyed. Waits while a gc holds the cache, polling every
  // `poll_seconds` (a gc takes seconds).
  Result<std::unique_ptr<KeyLock>> HoldForRun(double poll_seconds = 0.1);
  // gc's lease; nullptr when a live run or another gc holds the cache, and then *users says who.
  Result<std::unique_ptr<KeyLock>> TryHoldForGc(std::vector<LockHolder>* users);

 private:
  KeyLocks locks_;
};

}  // namespace seqflow

// Publisher: stores computed results to the cache off the critical path of a run.
//
// A store fsyncs the entry and its directory, which costs far more than a trivial node's body;
// the node's consumers already have its artifact in memory, so they need not wait for the disk,
// and concurrent fsyncs share journal commits. Execute calls Finish() before it returns, so a
// finished run's results are in the cache. A failed store is a warning (once per cause:
// cache_warnings.h), never fatal: the result is still correct, only not reusable.
// Thread safety: Submit may be called from any thread; Finish from the owner only.
#pragma once

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/cache/cache.h"
#include "engine/cache/checkpoints.h"
#include "engine/cache/key_locks.h"
#include "engine/exec/cache_warnings.h"

namespace seqflow {

class Publisher {
 public:
  // `writers` background threads, started on the first Submit (a fully cached run starts none).
  // `warnings` must outlive the publisher. A stored entry's checkpoint in `checkpoints` (may be
  // null) is removed: its node is finished.
  Publisher(Cache& cache, int writers, CacheWarnings& warnings, Checkpoints* checkpoints = nullptr);
  ~Publisher();  // Finish()
  Publisher(const Publisher&) = delete;
  Publisher& operator=(const Publisher&) = delete;

  // Queues cache.Store(key, entry); `label` names the node in a warning if the store fails.
  // `lock` (may be null) is released once the store is done, so a worker waiting for the key
  // finds its entry.
  void Submit(std::string key, CacheEntry entry, std::string label, std::unique_ptr<KeyLock> lock = nullptr);
  // Returns once every submitted store is done.
  void Finish();

 private:
  struct Job {
    std::string key;
    CacheEntry entry;
    std::string label;
    std::unique_ptr<KeyLock> lock;
  };
  void Work();

  Cache& cache_;
  const int writers_;
  CacheWarnings& warnings_;
  Checkpoints* checkpoints_;
  std::mutex mu_;
  std::condition_variable ready_;
  std::deque<Job> queue_;
  bool finishing_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace seqflow

// KeyLocks: one lock file per cache key, <cache>/locks/<key>.lock, so that two workers sharing a
// cache (threads, processes, machines on one network filesystem) do not compute the same key at
// once (DESIGN §10).
//
// The lock is an optimisation, never what makes the cache correct: entries are published by
// rename and every writer of a key writes the same bytes, so a lock wrongly broken costs a
// duplicate computation, not a wrong result. That is why a lock needs no fcntl/flock (unreliable
// on NFS): it is a file created with O_EXCL, holding "host pid" of its owner.
//
// Stale locks. The owner touches its lock files every `heartbeat_seconds` (one thread per
// KeyLocks). A lock is stale, and broken by the next worker that wants the key, when
//   - its owner ran on this host and that process no longer exists (a killed worker: broken at
//     once), or
//   - its owner is this process, which no longer holds it (its removal failed: broken at once), or
//   - it was not touched for `stale_seconds` (an owner on another host that died, or whose
//     machine did).
// Breaking renames the lock aside before removing it, so of two workers breaking one lock at
// once, usually one wins and the other's rename fails; in the rare interleaving where the loser
// moves the winner's fresh lock aside, both compute the key (harmless, as above).
//
// Thread safety: all methods may be called concurrently. A KeyLock is released by its
// destructor (which removes the file only if it is still this owner's).
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "engine/base/env.h"
#include "engine/base/status.h"

namespace seqflow {

struct KeyLockOptions {
  double heartbeat_seconds = 10;
  double stale_seconds = 120;  // > several heartbeats: NFS attribute caches delay mtimes ~60 s
  std::string folder = "locks";  // under the cache (CacheLeases keeps its own)
};

class KeyLocks;

class KeyLock {
 public:
  ~KeyLock();
  KeyLock(const KeyLock&) = delete;
  KeyLock& operator=(const KeyLock&) = delete;
  const std::string& key() const { return key_; }

 private:
  friend class KeyLocks;
  KeyLock(KeyLocks* owner, std::string key) : owner_(owner), key_(std::move(key)) {}
  KeyLocks* owner_;
  std::string key_;
};

// What holds a key's lock when it cannot be taken (for the message of a worker that waits).
struct LockHolder {
  std::string host;
  long pid = 0;
};

class KeyLocks {
 public:
  KeyLocks(std::string cache_dir, Env* env, KeyLockOptions options = {});
  ~KeyLocks();  // REQUIRES: every KeyLock it handed out is released
  KeyLocks(const KeyLocks&) = delete;
  KeyLocks& operator=(const KeyLocks&) = delete;

  // The lock of `key`, or nullptr when a live owner holds it (then *holder says who, if given).
  // A stale lock is broken (with a warning naming its owner) and taken.
  Result<std::unique_ptr<KeyLock>> TryAcquire(const std::string& key, LockHolder* holder = nullptr);

  // Whether a live owner holds the lock of `key` (then *holder says who, if given); a stale lock
  // counts as not held and is left for the next TryAcquire to break.
  bool Held(const std::string& key, LockHolder* holder = nullptr);
  // The live owners of every lock in the folder but `except`'s.
  Result<std::vector<LockHolder>> LiveHolders(const std::string& except);

  std::string PathOf(const std::string& key) const;
  // "host pid": what this process writes into its locks.
  static std::string OwnerText();

 private:
  friend class KeyLock;
  void Release(const std::string& key);
  void Heartbeat();
  // True when the lock at `path` is stale (see above); *holder is filled from its text.
  bool IsStale(const std::string& path, LockHolder* holder);

  std::string dir_;
  Env* env_;
  KeyLockOptions options_;
  std::string owner_text_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::set<std::string> held_;  // keys whose lock this process holds (touched by the heartbeat)
  bool stopping_ = false;
  std::thread heartbeat_;  // started with the first lock
};

}  // namespace seqflow

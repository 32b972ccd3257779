#include "engine/cache/cache_leases.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "engine/base/log.h"

namespace seqflow {
namespace {

constexpr const char* kGcKey = "gc";

KeyLockOptions InLeasesFolder(KeyLockOptions options) {
  options.folder = "leases";
  return options;
}

// "run-<host>-<pid>-<n>": unique over the machines sharing the cache and the leases of a process.
std::string RunLeaseKey() {
  static std::atomic<uint64_t> counter{0};
  const std::string owner = KeyLocks::OwnerText();  // "host pid\n"
  const std::string host = owner.substr(0, owner.find(' '));
  return "run-" + host + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

}  // namespace

CacheLeases::CacheLeases(const std::string& cache_dir, Env* env, KeyLockOptions options)
    : locks_(cache_dir, env, InLeasesFolder(std::move(options))) {}

Result<std::unique_ptr<KeyLock>> CacheLeases::HoldForRun(double poll_seconds) {
  const std::string key = RunLeaseKey();
  SEQFLOW_ASSIGN_OR_RETURN(std::unique_ptr<KeyLock> lease, locks_.TryAcquire(key));
  if (lease == nullptr) return Status::Internal("the run lease " + locks_.PathOf(key) + " is taken");
  bool told = false;
  for (LockHolder gc; locks_.Held(kGcKey, &gc);) {
    if (!told) LogInfo("waiting for `cache gc` of " + gc.host + " pid " + std::to_string(gc.pid) + " to finish");
    told = true;
    std::this_thread::sleep_for(std::chrono::duration<double>(poll_seconds));
  }
  return lease;
}

Result<std::unique_ptr<KeyLock>> CacheLeases::TryHoldForGc(std::vector<LockHolder>* users) {
  users->clear();
  LockHolder other;
  SEQFLOW_ASSIGN_OR_RETURN(std::unique_ptr<KeyLock> lease, locks_.TryAcquire(kGcKey, &other));
  if (lease == nullptr) {
    users->push_back(other);
    return lease;
  }
  SEQFLOW_ASSIGN_OR_RETURN(*users, locks_.LiveHolders(kGcKey));
  if (!users->empty()) lease.reset();
  return lease;
}

}  // namespace seqflow

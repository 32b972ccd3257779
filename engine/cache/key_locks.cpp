#include "engine/cache/key_locks.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <map>
#include <sstream>

#include "engine/base/log.h"

namespace seqflow {
namespace {

std::string HostName() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "unknown-host";
  return name;
}

bool ProcessExists(long pid) { return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM); }

// Lock paths this process holds or is taking, over all its KeyLocks, counted: a file with this
// process's owner text that none of them holds is a leftover whose removal failed (EIO), not a
// live lock, and would otherwise stall this process until it went stale.
class ProcessClaims {
 public:
  void Claim(const std::string& path) {
    std::lock_guard<std::mutex> lock(mu_);
    ++claims_[path];
  }
  void Unclaim(const std::string& path) {
    std::lock_guard<std::mutex> lock(mu_);
    if (--claims_[path] == 0) claims_.erase(path);
  }
  bool Claimed(const std::string& path) {
    std::lock_guard<std::mutex> lock(mu_);
    return claims_.count(path) > 0;
  }

 private:
  std::mutex mu_;
  std::map<std::string, int> claims_;
};

ProcessClaims& Claims() {
  static ProcessClaims* claims = new ProcessClaims();  // never deleted: used until process exit
  return *claims;
}

LockHolder ParseOwner(const std::string& text) {
  LockHolder holder;
  std::istringstream in(text);
  in >> holder.host >> holder.pid;
  return holder;
}

}  // namespace

KeyLock::~KeyLock() { owner_->Release(key_); }

KeyLocks::KeyLocks(std::string cache_dir, Env* env, KeyLockOptions options)
    : dir_(JoinPath(cache_dir, options.folder)), env_(env), options_(options), owner_text_(OwnerText()) {}

KeyLocks::~KeyLocks() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (heartbeat_.joinable()) heartbeat_.join();
}

std::string KeyLocks::OwnerText() { return HostName() + " " + std::to_string(::getpid()) + "\n"; }

std::string KeyLocks::PathOf(const std::string& key) const { return JoinPath(dir_, key + ".lock"); }

bool KeyLocks::IsStale(const std::string& path, LockHolder* holder) {
  Result<std::string> text = env_->ReadFile(path);
  Result<FileStat> st = env_->Stat(path);
  if (!text.ok() || !st.ok()) return false;  // released meanwhile: the caller retries
  *holder = ParseOwner(*text);
  if (holder->host == HostName() && !ProcessExists(holder->pid)) return true;
  if (*text == owner_text_ && !Claims().Claimed(path)) return true;
  return NowNs() - st->mtime_ns > static_cast<int64_t>(options_.stale_seconds * 1e9);
}

Result<std::unique_ptr<KeyLock>> KeyLocks::TryAcquire(const std::string& key, LockHolder* holder) {
  SEQFLOW_RETURN_IF_ERROR(env_->CreateDirs(dir_));
  const std::string path = PathOf(key);
  LockHolder seen;
  // Two rounds: the second follows the breaking of a stale lock (or its release meanwhile).
  for (int round = 0; round < 2; ++round) {
    bool created = false;
    // Claimed before the file exists, so no other KeyLocks of this process takes it for a leftover.
    Claims().Claim(path);
    Status made = env_->CreateExclusive(path, owner_text_, &created);
    if (!created) Claims().Unclaim(path);
    SEQFLOW_RETURN_IF_ERROR(made);
    if (created) {
      std::lock_guard<std::mutex> lock(mu_);
      held_.insert(key);
      if (!heartbeat_.joinable()) heartbeat_ = std::thread([this] { Heartbeat(); });
      return std::unique_ptr<KeyLock>(new KeyLock(this, key));
    }
    if (!IsStale(path, &seen)) {
      if (!env_->Exists(path)) continue;  // released between our create and our look
      break;
    }
    static std::atomic<uint64_t> counter{0};
    const std::string aside = path + ".stale." + std::to_string(::getpid()) + "." + std::to_string(counter++);
    if (!env_->Rename(path, aside).ok()) continue;  // another worker broke it first
    // This process's own leftover (its removal failed) is not news to anyone.
    if (seen.host != HostName() || seen.pid != ::getpid())
      LogWarning("cache key " + key + ": breaking the stale lock of " + seen.host + " pid " + std::to_string(seen.pid));
    env_->RemoveFile(aside);
  }
  if (holder != nullptr) *holder = seen;
  return std::unique_ptr<KeyLock>();
}

bool KeyLocks::Held(const std::string& key, LockHolder* holder) {
  LockHolder seen;
  const std::string path = PathOf(key);
  if (!env_->Exists(path) || IsStale(path, &seen) || !env_->Exists(path)) return false;
  if (holder != nullptr) *holder = seen;
  return true;
}

Result<std::vector<LockHolder>> KeyLocks::LiveHolders(const std::string& except) {
  std::vector<LockHolder> live;
  if (!env_->Exists(dir_)) return live;
  SEQFLOW_ASSIGN_OR_RETURN(std::vector<std::string> names, env_->ListDir(dir_));
  constexpr std::string_view kSuffix = ".lock";
  for (const std::string& name : names) {
    if (!name.ends_with(kSuffix)) continue;
    const std::string key = name.substr(0, name.size() - kSuffix.size());
    LockHolder holder;
    if (key != except && Held(key, &holder)) live.push_back(holder);
  }
  return live;
}

void KeyLocks::Release(const std::string& key) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    held_.erase(key);
  }
  const std::string path = PathOf(key);
  // Only our own lock: had it been broken as stale, the file may now be another owner's.
  Result<std::string> text = env_->ReadFile(path);
  if (text.ok() && *text == owner_text_) env_->RemoveFile(path);
  Claims().Unclaim(path);
}

void KeyLocks::Heartbeat() {
  std::unique_lock<std::mutex> lock(mu_);
  const auto period = std::chrono::duration<double>(options_.heartbeat_seconds);
  while (!wake_.wait_for(lock, period, [this] { return stopping_; })) {
    for (const std::string& key : held_) env_->Touch(PathOf(key));
  }
}

}  // namespace seqflow

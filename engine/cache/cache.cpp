#include "engine/cache/cache.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>

#include "engine/cache/entry_format.h"

namespace seqflow {
namespace {

constexpr std::string_view kEntrySuffix = ".sfa";
// A temp file this old belongs to a writer that died: no write of one entry takes an hour.
constexpr int64_t kStaleTempNs = 3600LL * 1000000000LL;

bool IsHexKey(const std::string& key) {
  if (key.size() < 3) return false;
  for (char c : key)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

Status CheckKey(const std::string& key) {
  if (IsHexKey(key)) return Status::Ok();
  return Status::Invalid("bad cache key '" + key + "' (expected lowercase hex digits)");
}

// Env::WriteFileAtomic names its temp files "<entry>.tmp.<pid>.<n>".
bool IsTempName(std::string_view name) {
  return name.find(std::string(kEntrySuffix) + ".tmp.") != std::string_view::npos;
}
bool IsEntryName(std::string_view name) { return name.ends_with(kEntrySuffix) && !IsTempName(name); }

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Status Corrupt(const std::string& path, const Status& why) {
  return Status::Corruption("corrupt cache entry " + path + ": " + why.message());
}

}  // namespace

Cache::Cache(std::string dir, const Registry* registry, Env* env)
    : dir_(std::move(dir)), registry_(registry), env_(env) {}

std::string Cache::PathOf(const std::string& key) const {
  return JoinPath(JoinPath(dir_, key.substr(0, 2)), key + std::string(kEntrySuffix));
}

Result<std::optional<CacheEntry>> Cache::Load(const std::string& key) const {
  SEQFLOW_RETURN_IF_ERROR(CheckKey(key));
  std::string path = PathOf(key);
  if (!env_->Exists(path)) return std::optional<CacheEntry>();
  SEQFLOW_ASSIGN_OR_RETURN(std::string bytes, env_->ReadFile(path));
  Result<CacheEntry> entry = DecodeEntry(bytes, *registry_);
  if (!entry.ok()) return Corrupt(path, entry.status());
  // Last use drives Gc; a read-only cache still serves loads, it just ages.
  env_->Touch(path);
  return std::optional<CacheEntry>(std::move(entry).value());
}

bool Cache::Contains(const std::string& key) const { return CheckKey(key).ok() && env_->Exists(PathOf(key)); }

Status Cache::Store(const std::string& key, const CacheEntry& entry) {
  SEQFLOW_RETURN_IF_ERROR(CheckKey(key));
  if (entry.artifact == nullptr) return Status::Invalid("cache entry " + key + " has no artifact");
  std::string path = PathOf(key);
  SEQFLOW_RETURN_IF_ERROR(env_->CreateDirs(DirName(path)));
  return env_->WriteFileAtomic(path, EncodeEntry(entry));
}

Status Cache::Remove(const std::string& key) {
  SEQFLOW_RETURN_IF_ERROR(CheckKey(key));
  std::string path = PathOf(key);
  if (!env_->Exists(path)) return Status::Ok();
  return env_->RemoveFile(path);
}

// Calls `visit(path, name)` for every file in the two-level layout <dir>/<xx>/<file>, temp files
// included; a missing cache directory is an empty cache.
static Status ForEachFile(Env* env, const std::string& dir,
                          const std::function<Status(const std::string&, const std::string&)>& visit) {
  if (!env->Exists(dir)) return Status::Ok();
  SEQFLOW_ASSIGN_OR_RETURN(std::vector<std::string> shards, env->ListDir(dir));
  for (const std::string& shard : shards) {
    std::string shard_dir = JoinPath(dir, shard);
    Result<FileStat> st = env->Stat(shard_dir);
    if (shard.size() != 2 || !st.ok() || !st->is_dir) continue;
    SEQFLOW_ASSIGN_OR_RETURN(std::vector<std::string> names, env->ListDir(shard_dir));
    for (const std::string& name : names) SEQFLOW_RETURN_IF_ERROR(visit(JoinPath(shard_dir, name), name));
  }
  return Status::Ok();
}

Result<std::vector<CacheListing>> Cache::List() const {
  std::vector<CacheListing> out;
  auto visit = [&](const std::string& path, const std::string& name) {
    if (!IsEntryName(name)) return Status::Ok();
    Result<FileStat> st = env_->Stat(path);
    Result<std::string> bytes = env_->ReadFile(path);
    if (!st.ok() || !bytes.ok()) return Status::Ok();  // removed meanwhile by another process
    CacheListing listing;
    listing.key = name.substr(0, name.size() - kEntrySuffix.size());
    listing.bytes = st->size;
    listing.mtime_ns = st->mtime_ns;
    Result<EntrySummary> summary = SummarizeEntry(*bytes);
    // A damaged entry is still listed, so `cache ls` shows it and `cache gc` can clear it.
    listing.kind = summary.ok() ? summary->kind : "(corrupt)";
    listing.artifact_type = summary.ok() ? summary->artifact_type : "";
    out.push_back(std::move(listing));
    return Status::Ok();
  };
  SEQFLOW_RETURN_IF_ERROR(ForEachFile(env_, dir_, visit));
  return out;
}

Result<int> Cache::Gc(double keep_days) {
  if (!(keep_days >= 0)) return Status::Invalid("gc: keep_days must be >= 0");
  const int64_t now = NowNs();
  const int64_t entry_cutoff = now - static_cast<int64_t>(keep_days * 86400.0 * 1e9);
  int removed = 0;
  auto visit = [&](const std::string& path, const std::string& name) {
    bool temp = IsTempName(name);
    if (!temp && !IsEntryName(name)) return Status::Ok();
    Result<FileStat> st = env_->Stat(path);
    if (!st.ok()) return Status::Ok();  // removed meanwhile
    if (st->mtime_ns >= (temp ? now - kStaleTempNs : entry_cutoff)) return Status::Ok();
    if (!env_->RemoveFile(path).ok() && env_->Exists(path)) return Status::Io("gc: cannot remove " + path);
    if (!temp) ++removed;
    return Status::Ok();
  };
  SEQFLOW_RETURN_IF_ERROR(ForEachFile(env_, dir_, visit));
  return removed;
}

Result<int> Cache::RemoveKind(const std::string& kind) {
  int removed = 0;
  auto visit = [&](const std::string& path, const std::string& name) {
    if (!IsEntryName(name)) return Status::Ok();
    Result<std::string> bytes = env_->ReadFile(path);
    if (!bytes.ok()) return Status::Ok();
    Result<EntrySummary> summary = SummarizeEntry(*bytes);
    if (!summary.ok() || summary->kind != kind) return Status::Ok();
    SEQFLOW_RETURN_IF_ERROR(env_->RemoveFile(path));
    ++removed;
    return Status::Ok();
  };
  SEQFLOW_RETURN_IF_ERROR(ForEachFile(env_, dir_, visit));
  return removed;
}

std::string Cache::DefaultDir() {
  std::error_code ec;
  std::string cwd = std::filesystem::current_path(ec).string();
  const char* env_dir = std::getenv("SEQFLOW_CACHE");
  if (env_dir != nullptr && *env_dir) return ResolvePath(cwd, env_dir);
  return ResolvePath(cwd, ".seqflow/cache");
}

}  // namespace seqflow

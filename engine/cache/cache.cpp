#include "engine/cache/cache.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>

#include "engine/cache/artifact_pieces.h"
#include "engine/cache/entry_format.h"
#include "engine/cache/final_states.h"

namespace seqflow {
namespace {

constexpr std::string_view kEntrySuffix = ".sfa";
constexpr std::string_view kHistorySuffix = ".sfr";
constexpr std::string_view kHistoryDir = "runs";
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

// Env::WriteFileAtomic names its temp files "<file>.tmp.<pid>.<n>".
bool IsTempName(std::string_view name, std::string_view suffix = kEntrySuffix) {
  return name.find(std::string(suffix) + ".tmp.") != std::string_view::npos;
}
bool IsEntryName(std::string_view name) { return name.ends_with(kEntrySuffix) && !IsTempName(name); }

// Removes `path` unless another process already did.
Status RemoveIfPresent(Env* env, const std::string& path) {
  if (!env->RemoveFile(path).ok() && env->Exists(path)) return Status::Io("gc: cannot remove " + path);
  return Status::Ok();
}

Status Corrupt(const std::string& path, const Status& why) {
  return Status::Corruption("corrupt cache entry " + path + ": " + why.message());
}

}  // namespace

Status CheckCacheKey(const std::string& key) { return CheckKey(key); }

Cache::Cache(std::string dir, const Registry* registry, Env* env)
    : dir_(std::move(dir)), registry_(registry), env_(env) {}

std::string Cache::PathOf(const std::string& key) const {
  return JoinPath(JoinPath(dir_, key.substr(0, 2)), key + std::string(kEntrySuffix));
}

std::string Cache::HistoryPathOf(const std::string& run_id) const {
  return JoinPath(JoinPath(dir_, kHistoryDir), run_id + std::string(kHistorySuffix));
}

Result<std::optional<CacheEntry>> Cache::Load(const std::string& key, size_t defer_from_bytes) const {
  SEQFLOW_RETURN_IF_ERROR(CheckKey(key));
  std::string path = PathOf(key);
  if (!env_->Exists(path)) return std::optional<CacheEntry>();
  if (Result<FileStat> st = env_->Stat(path); st.ok() && (st->is_dir || st->is_special))
    return Corrupt(path, Status::Corruption("not a file (Store replaces an empty folder)"));
  SEQFLOW_ASSIGN_OR_RETURN(std::string bytes, env_->ReadFile(path));
  Result<CacheEntry> entry = DecodeEntry(bytes, *registry_, defer_from_bytes);
  if (!entry.ok()) return Corrupt(path, entry.status());
  if (entry->key != key)
    return Corrupt(path, Status::Corruption("the entry of key " + entry->key + " (a file copied or renamed)"));
  // An entry whose pieces are missing or damaged is damaged: its node recomputes them.
  const ArtifactPieces pieces(dir_, "", env_);
  const std::vector<std::string> piece_names =
      entry->artifact != nullptr ? entry->artifact->PieceNames() : std::vector<std::string>();
  for (const std::string& name : piece_names) {
    Status whole = pieces.Check(name);
    if (!whole.ok()) return Corrupt(path, whole);
  }
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
  // An empty folder in the entry's place (made by hand, or by a tool) would refuse the rename
  // for ever: it goes, so the entry heals. A folder with files in it is not ours to remove.
  if (Result<FileStat> st = env_->Stat(path); st.ok() && st->is_dir) {
    Status removed = env_->RemoveDir(path);
    if (!removed.ok()) return removed.Annotate("a folder stands where cache entry " + key + " goes; remove it");
  }
  const EntryParts parts = EncodeEntryParts(key, entry);
  return env_->WriteFileAtomicParts(path, parts.views());
}

namespace {

constexpr const char* kTagName = "CACHEDIR.TAG";
// The signature line is the convention's (bford.info/cachedir); tar --exclude-caches and most
// backup tools skip a folder holding it.
constexpr const char* kTag =
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This folder is a seqflow cache: every file in it can be recomputed from the pipelines.\n";

}  // namespace

Status Cache::Mark() {
  const std::string tag = dir_ + "/" + kTagName;
  if (env_->Exists(tag)) return Status::Ok();
  SEQFLOW_RETURN_IF_ERROR(env_->CreateDirs(dir_));
  return env_->WriteFileAtomic(tag, kTag);
}

bool Cache::IsMarked() const { return env_->Exists(dir_ + "/" + kTagName); }

Status Cache::Remove(const std::string& key) {
  SEQFLOW_RETURN_IF_ERROR(CheckKey(key));
  std::string path = PathOf(key);
  if (!env_->Exists(path)) return Status::Ok();
  return env_->RemoveFile(path);
}

Result<std::optional<RunHistory>> Cache::LoadRunHistory(const std::string& run_id) const {
  SEQFLOW_RETURN_IF_ERROR(CheckKey(run_id));
  const std::string path = HistoryPathOf(run_id);
  if (!env_->Exists(path)) return std::optional<RunHistory>();
  SEQFLOW_ASSIGN_OR_RETURN(std::string bytes, env_->ReadFile(path));
  Result<RunHistory> history = DecodeRunHistory(bytes);
  if (!history.ok()) return Status::Corruption("corrupt run history " + path + ": " + history.status().message());
  return std::optional<RunHistory>(std::move(history).value());
}

Status Cache::StoreRunHistory(const std::string& run_id, const RunHistory& history) {
  SEQFLOW_RETURN_IF_ERROR(CheckKey(run_id));
  const std::string path = HistoryPathOf(run_id);
  std::string bytes = EncodeRunHistory(history);
  // A rerun's history is the one stored: it is only touched (gc ages it by its mtime), so a
  // read-only cache serves a rerun without a failed write.
  if (env_->Exists(path)) {
    Result<std::string> stored = env_->ReadFile(path);
    if (stored.ok() && *stored == bytes) {
      env_->Touch(path);
      return Status::Ok();
    }
  }
  SEQFLOW_RETURN_IF_ERROR(env_->CreateDirs(DirName(path)));
  return env_->WriteFileAtomic(path, bytes);
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

Result<GcCounts> Cache::Gc(double keep_days) {
  if (!(keep_days >= 0)) return Status::Invalid("gc: keep_days must be >= 0");
  const int64_t now = NowNs();
  const int64_t cutoff = now - static_cast<int64_t>(keep_days * 86400.0 * 1e9);
  GcCounts counts;
  auto visit = [&](const std::string& path, const std::string& name) {
    bool temp = IsTempName(name);
    if (!temp && !IsEntryName(name)) return Status::Ok();
    Result<FileStat> st = env_->Stat(path);
    if (!st.ok() || st->is_dir || st->is_special) return Status::Ok();  // removed meanwhile, or not an entry
    if (st->mtime_ns >= (temp ? now - kStaleTempNs : cutoff)) return Status::Ok();
    SEQFLOW_RETURN_IF_ERROR(RemoveIfPresent(env_, path));
    if (!temp) ++counts.entries;
    return Status::Ok();
  };
  SEQFLOW_RETURN_IF_ERROR(ForEachFile(env_, dir_, visit));
  SEQFLOW_ASSIGN_OR_RETURN(counts.histories, GcRunHistories(cutoff));
  SEQFLOW_ASSIGN_OR_RETURN(counts.task_files, GcTaskFiles(cutoff));
  SEQFLOW_ASSIGN_OR_RETURN(counts.sweeps, GcSweeps(cutoff));
  FinalStates final_states(dir_, env_);
  SEQFLOW_ASSIGN_OR_RETURN(counts.final_states,
                           final_states.Prune([this](const std::string& key) { return Contains(key); }));
  return counts;
}

// Calls `visit(path, name, stat)` for every file of the flat directory <dir>/<sub>.
static Status ForEachIn(Env* env, const std::string& dir,
                        const std::function<Status(const std::string&, const std::string&, const FileStat&)>& visit) {
  if (!env->Exists(dir)) return Status::Ok();
  SEQFLOW_ASSIGN_OR_RETURN(std::vector<std::string> names, env->ListDir(dir));
  for (const std::string& name : names) {
    const std::string path = JoinPath(dir, name);
    Result<FileStat> st = env->Stat(path);
    if (!st.ok() || st->is_dir) continue;  // removed meanwhile, or not ours
    SEQFLOW_RETURN_IF_ERROR(visit(path, name, *st));
  }
  return Status::Ok();
}

Result<int> Cache::GcTaskFiles(int64_t cutoff_ns) {
  int removed = 0;
  auto remove = [&](const std::string& path) {
    SEQFLOW_RETURN_IF_ERROR(RemoveIfPresent(env_, path));
    ++removed;
    return Status::Ok();
  };
  for (const char* sub : {"tasks", "status"}) {
    SEQFLOW_RETURN_IF_ERROR(ForEachIn(env_, JoinPath(dir_, sub), [&](const std::string& path, const std::string&,
                                                                    const FileStat& st) {
      return st.mtime_ns < cutoff_ns ? remove(path) : Status::Ok();
    }));
  }
  SEQFLOW_RETURN_IF_ERROR(ForEachIn(env_, JoinPath(dir_, "checkpoints"), [&](const std::string& path,
                                                                             const std::string& name,
                                                                             const FileStat& st) {
    const std::string key = name.substr(0, name.find('.'));
    return st.mtime_ns < cutoff_ns || Contains(key) ? remove(path) : Status::Ok();
  }));
  // A piece whose owner has no entry: the owner was removed, or died computing (an hour).
  const int64_t dead_writer = NowNs() - kStaleTempNs;
  SEQFLOW_RETURN_IF_ERROR(ForEachIn(env_, ArtifactPieces::DirOf(dir_), [&](const std::string& path,
                                                                           const std::string& name,
                                                                           const FileStat& st) {
    const std::string owner = ArtifactPieces::OwnerOf(name);
    const bool temp = IsTempName(name, ".sfp");
    if (st.mtime_ns >= dead_writer || (!temp && !owner.empty() && Contains(owner))) return Status::Ok();
    return remove(path);
  }));
  const int64_t dead_lock = NowNs() - kStaleTempNs;
  for (const char* sub : {"locks", "leases"}) {
    SEQFLOW_RETURN_IF_ERROR(ForEachIn(env_, JoinPath(dir_, sub), [&](const std::string& path, const std::string&,
                                                                    const FileStat& st) {
      return st.mtime_ns < dead_lock ? remove(path) : Status::Ok();
    }));
  }
  return removed;
}

Result<int> Cache::GcSweeps(int64_t cutoff_ns) {
  const std::string sweeps = JoinPath(dir_, "sweeps");
  if (!env_->Exists(sweeps)) return 0;
  SEQFLOW_ASSIGN_OR_RETURN(std::vector<std::string> ids, env_->ListDir(sweeps));
  int removed = 0;
  for (const std::string& id : ids) {
    const std::string sweep = JoinPath(sweeps, id), logs = JoinPath(sweep, "logs");
    std::vector<std::string> files;
    bool recent = false;
    auto collect = [&](const std::string& path, const std::string&, const FileStat& st) {
      recent = recent || st.mtime_ns >= cutoff_ns;
      files.push_back(path);
      return Status::Ok();
    };
    SEQFLOW_RETURN_IF_ERROR(ForEachIn(env_, sweep, collect));
    SEQFLOW_RETURN_IF_ERROR(ForEachIn(env_, logs, collect));
    if (recent) continue;
    for (const std::string& file : files) SEQFLOW_RETURN_IF_ERROR(RemoveIfPresent(env_, file));
    if (env_->Exists(logs)) SEQFLOW_RETURN_IF_ERROR(env_->RemoveDir(logs));
    SEQFLOW_RETURN_IF_ERROR(env_->RemoveDir(sweep));
    ++removed;
  }
  return removed;
}

Result<int> Cache::GcRunHistories(int64_t cutoff_ns) {
  const std::string dir = JoinPath(dir_, kHistoryDir);
  if (!env_->Exists(dir)) return 0;
  SEQFLOW_ASSIGN_OR_RETURN(std::vector<std::string> names, env_->ListDir(dir));
  int removed = 0;
  for (const std::string& name : names) {
    const std::string path = JoinPath(dir, name);
    Result<FileStat> st = env_->Stat(path);
    if (!st.ok() || st->is_dir) continue;  // removed meanwhile, or not ours
    bool prune;
    if (IsTempName(name, kHistorySuffix)) {
      prune = st->mtime_ns < NowNs() - kStaleTempNs;
    } else if (st->mtime_ns < cutoff_ns) {
      prune = true;
    } else {
      Result<std::string> bytes = env_->ReadFile(path);
      if (!bytes.ok()) continue;  // removed meanwhile
      Result<RunHistory> history = DecodeRunHistory(*bytes);
      prune = !history.ok() || std::none_of(history->nodes.begin(), history->nodes.end(),
                                            [&](const auto& node) { return Contains(node.second.key); });
    }
    if (!prune) continue;
    SEQFLOW_RETURN_IF_ERROR(RemoveIfPresent(env_, path));
    removed += !IsTempName(name, kHistorySuffix);
  }
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

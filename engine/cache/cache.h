// Cache: a content-addressed store of node results on disk (DESIGN §6).
//
// Entry file <dir>/<key[0:2]>/<key>.sfa:
//   magic "SQFLART\0" | u32 format version | u64 payload length | u64 XXH64(payload) | payload
//   payload = key, kind name, artifact type, artifact version, seconds, metrics, attachments,
//             artifact bytes (ByteWriter framing)
// An entry knows its key: one found under another key (a file copied or renamed) is damaged.
// Published by Env::WriteFileAtomic (temp, fsync, rename), so a crash leaves either no entry or
// a whole one; every load verifies magic, version, length and checksum, and a bad entry is
// reported as Corruption (the caller recomputes and overwrites it). Concurrent runs on one
// directory are safe: writers of the same key publish identical bytes by rename.
//
// Run history <dir>/runs/<run id>.sfr (run_history.h): what `seqflow plan` compares a pipeline
// with — the keys and key parts of the last run of each (pipeline, ablation), rewritten by every
// run (a rerun's unchanged history is only touched). Published and verified like an entry.
//
// gc --keep-days N removes
//   - entries not used (loaded or stored) for N days,
//   - run histories not rewritten for N days (the run was not repeated since), or none of whose
//     entries is left after that (nothing of the run is cached, so there is nothing a plan could
//     reuse), or that cannot be read (damaged, or written by an older seqflow),
//   - temporary files older than an hour (their writer died: no write takes that long),
//   - what sweeps and iterative nodes leave beside the entries: task manifests (tasks/), task
//     records (status/) and checkpoints (checkpoints/) not written for N days, a checkpoint whose
//     entry exists (its node finished), key locks and run leases untouched for an hour (their owner
//     died: a live one is touched every 10 s), and sweep directories (sweeps/<id>/: lists, tasks.tsv, logs)
//     none of whose files was written for N days,
//   - the final states of iterative nodes (final_states/, FinalStates) whose entry is gone,
//   - artifacts' pieces (pieces/, artifact_pieces.h) whose owner entry is gone, once an hour old
//     (counted with task_files).
// Every file goes through the Env. Gc itself does not look at who uses the cache: `cache gc` runs
// it only while it holds the cache's gc lease (cache_leases.h), which no live run holds with it.
//
// <dir>/CACHEDIR.TAG marks the folder as a seqflow cache (and, by the Cache Directory Tagging
// convention, one that backups may skip). `seqflow run` and `run-node` write it; `cache gc` and
// `cache rm` refuse a folder without it, so a mistyped --cache deletes nobody's files.
// Thread safety: all methods may be called concurrently.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/api/artifact.h"
#include "engine/api/registry.h"
#include "engine/base/env.h"
#include "engine/base/status.h"
#include "engine/cache/run_history.h"

namespace seqflow {

struct CacheEntry {
  std::string kind;
  ArtifactPtr artifact;  // null when its loading was deferred (Cache::Load's defer_from_bytes)
  double seconds = 0;  // compute time when it was made
  std::map<std::string, double> metrics;
  std::vector<std::pair<std::string, std::string>> attachments;  // suffix -> content
  std::string artifact_type;  // as loaded from the cache, also when the artifact was deferred
  std::string key;            // as loaded: the key it was stored under (Store writes its own)
};

// Ok for a key as the DAG makes them (lowercase hex digits), else Invalid: what may name a file
// in the cache (an entry, a task manifest or record, a checkpoint).
Status CheckCacheKey(const std::string& key);

struct GcCounts {
  int entries = 0;      // cache entries removed
  int histories = 0;    // run histories removed
  int task_files = 0;   // task manifests and records, checkpoints and locks removed
  int sweeps = 0;       // sweep directories removed
  int final_states = 0;  // files of final states (FinalStates) whose entry is gone
};

struct CacheListing {
  std::string key;
  std::string kind;
  std::string artifact_type;
  uint64_t bytes = 0;
  int64_t mtime_ns = 0;
};

class Cache {
 public:
  // `registry` must outlive the cache.
  Cache(std::string dir, const Registry* registry, Env* env);

  const std::string& dir() const { return dir_; }
  Env* env() const { return env_; }
  // nullopt on a miss; Corruption (naming the file and what is wrong) on a damaged entry.
  // The entry, its frame, checksum and fields checked. An artifact of `defer_from_bytes` bytes or
  // more is not decoded (nor its pieces checked): the entry's artifact is null, and a later Load
  // with the default decodes it. Decoding a model costs far more than reading its file (a
  // CoNLL-2000 CRF: 0.4 s of CPU), and a run that finds a node's consumers cached never needs it.
  Result<std::optional<CacheEntry>> Load(const std::string& key,
                                         size_t defer_from_bytes = std::numeric_limits<size_t>::max()) const;
  bool Contains(const std::string& key) const;
  Status Store(const std::string& key, const CacheEntry& entry);
  Status Remove(const std::string& key);

  // The run history of `run_id` (hex digits naming a pipeline and ablation); nullopt when none
  // is kept, Corruption naming the file for a damaged one.
  Result<std::optional<RunHistory>> LoadRunHistory(const std::string& run_id) const;
  Status StoreRunHistory(const std::string& run_id, const RunHistory& history);

  Result<std::vector<CacheListing>> List() const;
  // Removes what the rules above say, entries first; returns how many of each.
  Result<GcCounts> Gc(double keep_days);
  // Removes every entry of `kind`; returns how many.
  Result<int> RemoveKind(const std::string& kind);

  // Writes CACHEDIR.TAG (and the folder) unless it is there.
  Status Mark();
  // Whether CACHEDIR.TAG is there: the folder is a seqflow cache.
  bool IsMarked() const;

  // Default directory: $SEQFLOW_CACHE, else <working dir>/.seqflow/cache.
  static std::string DefaultDir();

 private:
  std::string PathOf(const std::string& key) const;
  std::string HistoryPathOf(const std::string& run_id) const;
  // The history rules of Gc; `cutoff_ns` is the oldest mtime kept.
  Result<int> GcRunHistories(int64_t cutoff_ns);
  // The task files, checkpoints and locks rules of Gc; returns how many files went.
  Result<int> GcTaskFiles(int64_t cutoff_ns);
  // The sweep directory rule of Gc; returns how many directories went.
  Result<int> GcSweeps(int64_t cutoff_ns);
  std::string dir_;
  const Registry* registry_;
  Env* env_;
};

}  // namespace seqflow

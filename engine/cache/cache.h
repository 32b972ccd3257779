// Cache: a content-addressed store of node results on disk (DESIGN §6).
//
// Entry file <dir>/<key[0:2]>/<key>.sfa:
//   magic "SQFLART\0" | u32 format version | u64 payload length | u64 XXH64(payload) | payload
//   payload = kind name, artifact type, artifact version, seconds, metrics, attachments,
//             artifact bytes (ByteWriter framing)
// Published by Env::WriteFileAtomic (temp, fsync, rename), so a crash leaves either no entry or
// a whole one; every load verifies magic, version, length and checksum, and a bad entry is
// reported as Corruption (the caller recomputes and overwrites it). Concurrent runs on one
// directory are safe: writers of the same key publish identical bytes by rename.
// Thread safety: all methods may be called concurrently.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/api/artifact.h"
#include "engine/api/registry.h"
#include "engine/base/env.h"
#include "engine/base/status.h"

namespace seqflow {

struct CacheEntry {
  std::string kind;
  ArtifactPtr artifact;
  double seconds = 0;  // compute time when it was made
  std::map<std::string, double> metrics;
  std::vector<std::pair<std::string, std::string>> attachments;  // suffix -> content
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
  // nullopt on a miss; Corruption (naming the file and what is wrong) on a damaged entry.
  Result<std::optional<CacheEntry>> Load(const std::string& key) const;
  bool Contains(const std::string& key) const;
  Status Store(const std::string& key, const CacheEntry& entry);
  Status Remove(const std::string& key);

  Result<std::vector<CacheListing>> List() const;
  // Removes entries not used (loaded or stored) for `keep_days` days; returns how many.
  Result<int> Gc(double keep_days);
  // Removes every entry of `kind`; returns how many.
  Result<int> RemoveKind(const std::string& kind);

  // Default directory: $SEQFLOW_CACHE, else <working dir>/.seqflow/cache.
  static std::string DefaultDir();

 private:
  std::string PathOf(const std::string& key) const;
  std::string dir_;
  const Registry* registry_;
  Env* env_;
};

}  // namespace seqflow

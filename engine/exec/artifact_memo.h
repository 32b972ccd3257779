// ArtifactMemo: node results by cache key, kept in memory across the runs of one invocation, so
// ablation runs reuse their common prefix without reloading it from the cache directory.
//
// Lifetime. A memo built from the invocation's runs counts, per key, the uses still to come in
// all of them: every node instance uses its own key (a later run's node may be served its result
// from here) and the keys of its inputs. Execute calls Release as each node finishes, whatever
// its status; an artifact whose count reaches zero is dropped at once, so the memo holds only
// what a node not yet finished will read, and an ablation grid's memory does not grow with the
// grid. A default-constructed memo keeps every artifact until it is destroyed (repeated runs of
// one Dag in tests and benchmarks).
//
// Dropping never changes a result: a finished run's computed results are already in the cache,
// so a miss here is a load there.
// Thread safety: all methods may be called concurrently.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/api/artifact.h"
#include "engine/cache/cache.h"
#include "engine/graph/dag.h"

namespace seqflow {

class ArtifactMemo {
 public:
  ArtifactMemo() = default;  // keeps everything
  // REQUIRES: `runs` are the Dags the memo will serve, each passed to Execute once.
  explicit ArtifactMemo(const std::vector<const Dag*>& runs);

  ArtifactPtr Find(const std::string& key) const;
  void Put(const std::string& key, ArtifactPtr a);
  // The artifact with the metrics and attachments its node reported, so a node reused from
  // memory reports the same figures as one loaded from the cache. nullopt when absent.
  std::optional<CacheEntry> FindEntry(const std::string& key) const;
  // When counting, an entry no remaining node uses is not kept.
  void PutEntry(const std::string& key, CacheEntry entry);
  // Sets the artifact of an entry held without one (deferred by Cache::Load); nothing otherwise.
  void PutArtifact(const std::string& key, ArtifactPtr artifact);

  // Node `index` of `dag` finished: its uses are spent, and what no remaining node uses is
  // dropped. Nothing happens to a memo that keeps everything.
  void Release(const Dag& dag, int index);

  size_t size() const;  // artifacts held

 private:
  mutable std::mutex mu_;
  std::map<std::string, CacheEntry> by_key_;
  bool counting_ = false;
  std::map<std::string, int> uses_;  // key -> uses to come; absent = none
};

// The distinct keys node `index` uses: its own and its inputs'.
std::vector<std::string> KeysUsedBy(const Dag& dag, int index);

// The distinct upstream nodes of `node`, ascending.
std::vector<int> SourcesOf(const DagNode& node);

}  // namespace seqflow

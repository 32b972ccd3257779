#include "engine/exec/artifact_memo.h"

#include <algorithm>

namespace seqflow {

std::vector<int> SourcesOf(const DagNode& node) {
  std::vector<int> sources;
  for (const DagInput& input : node.inputs) sources.insert(sources.end(), input.sources.begin(), input.sources.end());
  std::sort(sources.begin(), sources.end());
  sources.erase(std::unique(sources.begin(), sources.end()), sources.end());
  return sources;
}

std::vector<std::string> KeysUsedBy(const Dag& dag, int index) {
  const DagNode& node = dag.nodes[index];
  std::vector<std::string> keys{node.key};
  for (int source : SourcesOf(node)) keys.push_back(dag.nodes[source].key);
  // Two inputs (or an input and the node itself) may share a key: one use each way.
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

ArtifactMemo::ArtifactMemo(const std::vector<const Dag*>& runs) : counting_(true) {
  for (const Dag* dag : runs)
    for (size_t i = 0; i < dag->nodes.size(); ++i)
      for (std::string& key : KeysUsedBy(*dag, static_cast<int>(i))) ++uses_[std::move(key)];
}

ArtifactPtr ArtifactMemo::Find(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_key_.find(key);
  return it == by_key_.end() ? nullptr : it->second.artifact;
}

void ArtifactMemo::Put(const std::string& key, ArtifactPtr a) {
  CacheEntry entry;
  entry.artifact = std::move(a);
  PutEntry(key, std::move(entry));
}

std::optional<CacheEntry> ArtifactMemo::FindEntry(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_key_.find(key);
  if (it == by_key_.end()) return std::nullopt;
  return it->second;
}

void ArtifactMemo::PutEntry(const std::string& key, CacheEntry entry) {
  std::lock_guard<std::mutex> lock(mu_);
  if (counting_ && uses_.count(key) == 0) return;
  by_key_.insert_or_assign(key, std::move(entry));
}

void ArtifactMemo::PutArtifact(const std::string& key, ArtifactPtr artifact) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_key_.find(key);
  if (it != by_key_.end() && it->second.artifact == nullptr) it->second.artifact = std::move(artifact);
}

void ArtifactMemo::Release(const Dag& dag, int index) {
  if (!counting_) return;
  std::vector<std::string> keys = KeysUsedBy(dag, index);
  std::vector<CacheEntry> dropped;  // freed after the lock: a model may take a while to free
  std::lock_guard<std::mutex> lock(mu_);
  for (const std::string& key : keys) {
    auto it = uses_.find(key);
    if (it == uses_.end() || --it->second > 0) continue;
    uses_.erase(it);
    if (auto held = by_key_.find(key); held != by_key_.end()) {
      dropped.push_back(std::move(held->second));
      by_key_.erase(held);
    }
  }
}

size_t ArtifactMemo::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return by_key_.size();
}

}  // namespace seqflow

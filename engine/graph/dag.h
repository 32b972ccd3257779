// Dag: a validated, keyed pipeline run, in topological order. Built from one RunVariant's
// PipelineSpec and the Registry; knows nothing of TBB or the cache's storage.
//
// Validation (before anything runs), each error with file:line:col and a did-you-mean:
//   test data reaching a port that trains or chooses (CheckDataRoles in build.h);
//   unknown kind / parameter / port / upstream node; required parameter or port missing;
//   value of the wrong type or failing its check; a port fed an artifact of the wrong type;
//   a cycle (the message lists it); a kPath parameter whose file is missing or unreadable.
//
// Cache key of a node = hash(kind name, kind version, params.Canonical() with kPath values
// replaced by the hash of the file's bytes, and the keys of its inputs in port order). Its
// family key is the same hash without the kind's budget parameters.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/api/params.h"
#include "engine/api/registry.h"
#include "engine/base/env.h"
#include "engine/dsl/spec.h"

namespace seqflow {

struct DagInput {
  std::string port;
  std::vector<int> sources;  // indices into Dag::nodes, in YAML order
};

struct DagNode {
  std::string name;
  const KindSpec* kind = nullptr;  // owned by the Registry
  Params params;                   // kPath values are absolute paths
  std::vector<DagInput> inputs;    // in the kind's port order
  std::string key;                 // 32 hex digits
  // The key with the kind's budget parameters left out (KindSpec::Continuing): nodes that differ
  // in their budget alone share it. Empty for a kind without budget parameters.
  std::string family_key;
  SourceLoc loc;
  // The node's data role and its waivers of the role check, as the pipeline says them (not in the
  // key: they decide what may run, not what a node computes), for resolved.yaml.
  DataRole role = DataRole::kNone;
  bool oracle = false;
  bool transductive = false;
  // Why the key is what it is, for `seqflow plan`: parameter canonical text and file hashes.
  std::map<std::string, std::string> key_parts;
};

struct Dag {
  std::vector<DagNode> nodes;  // topological order: inputs before consumers
  int Find(const std::string& name) const;  // -1 when absent
  std::vector<int> Consumers(int node) const;
};

// Hashes file contents for cache keys, memoised by (path, size, mtime) for the life of the
// object. Thread safe.
class FileHasher {
 public:
  explicit FileHasher(Env* env);
  // A hasher that reads nothing: a file's hash is its path's, so a pipeline's shape can be built
  // and drawn (seqflow graph) before its data exist. Its keys name no cache entry.
  static FileHasher ByName();
  Result<std::string> Hash(const std::string& path);

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

Result<Dag> BuildDag(const PipelineSpec& spec, const Registry& registry, FileHasher& hasher);

// Graphviz dot of the DAG: one box per node labelled "name\nkind", edges labelled by port.
std::string ToDot(const Dag& dag, const std::string& title);

}  // namespace seqflow

// The steps of BuildDag (internal to engine/graph): bind each NodeSpec to its kind (parameters
// parsed, files hashed, inputs resolved and type-checked), order the nodes, key them.
// Every error carries the SourceLoc of the YAML element at fault and a did-you-mean when a
// name is close to a valid one. Thread safety: pure functions apart from the FileHasher.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/api/params.h"
#include "engine/api/registry.h"
#include "engine/dsl/spec.h"
#include "engine/graph/dag.h"

namespace seqflow::graph {

// One node of the spec, validated against its kind; indices refer to spec.nodes.
struct BoundNode {
  const NodeSpec* spec = nullptr;
  const KindSpec* kind = nullptr;
  std::map<std::string, ParamValue> params;       // every declared parameter; kPath absolute
  std::map<std::string, std::string> file_hashes;  // kPath parameter -> hash of the file's bytes
  std::vector<DagInput> inputs;                    // kind's port order; sources index spec.nodes
};

// Binds every node of `spec`, in file order: all kinds are looked up first (an unknown kind is
// reported before anything that depends on it), then each node's parameters and inputs.
Result<std::vector<BoundNode>> BindNodes(const PipelineSpec& spec, const Registry& registry, FileHasher& hasher);

// Indices of `nodes` with inputs before consumers; among ready nodes, file order first.
// A cycle is Invalid at its first node, listing it ("a -> b -> a").
Result<std::vector<int>> TopologicalOrder(const std::vector<BoundNode>& nodes);

// Test data reaches only ports that read it, dev data none that train on it (PortUse), unless
// the consuming node waives it (NodeSpec::oracle, ::transductive). A violation is Invalid at the
// consumer's input, naming the path from the role's declaration: "test → vocab → hmm(data)".
// A waiver on a node without a port it could apply to is Invalid too.
Status CheckDataRoles(const std::vector<BoundNode>& nodes, const std::vector<int>& order);

// The node's key and key_parts from its kind, parameters, file hashes and input keys.
// REQUIRES: the inputs of `node` already have keys in `dag`.
void ComputeKey(const BoundNode& bound, const Dag& dag, DagNode& node);

// "cannot read file 'PATH': REASON" out of an Env error about `path`.
std::string CannotReadFile(const std::string& path, const Status& env_error);

}  // namespace seqflow::graph

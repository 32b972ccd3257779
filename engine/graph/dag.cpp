// BuildDag: bind, order, key; plus the Dag's lookups.
#include "engine/graph/dag.h"

#include <algorithm>

#include "engine/graph/build.h"

namespace seqflow {

int Dag::Find(const std::string& name) const {
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].name == name) return static_cast<int>(i);
  return -1;
}

std::vector<int> Dag::Consumers(int node) const {
  std::vector<int> out;
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (const auto& input : nodes[i].inputs) {
      if (std::find(input.sources.begin(), input.sources.end(), node) != input.sources.end()) {
        out.push_back(static_cast<int>(i));
        break;
      }
    }
  }
  return out;
}

Result<Dag> BuildDag(const PipelineSpec& spec, const Registry& registry, FileHasher& hasher) {
  SEQFLOW_ASSIGN_OR_RETURN(std::vector<graph::BoundNode> bound, graph::BindNodes(spec, registry, hasher));
  SEQFLOW_ASSIGN_OR_RETURN(std::vector<int> order, graph::TopologicalOrder(bound));
  SEQFLOW_RETURN_IF_ERROR(graph::CheckDataRoles(bound, order));
  std::vector<int> position(order.size());
  for (size_t p = 0; p < order.size(); ++p) position[order[p]] = static_cast<int>(p);

  Dag dag;
  dag.nodes.reserve(order.size());
  for (int index : order) {
    graph::BoundNode& b = bound[index];
    DagNode node;
    node.name = b.spec->name;
    node.kind = b.kind;
    node.loc = b.spec->loc;
    node.role = b.spec->role;
    node.oracle = b.spec->oracle;
    node.transductive = b.spec->transductive;
    for (const auto& input : b.inputs) {
      DagInput remapped{input.port, {}};
      for (int source : input.sources) remapped.sources.push_back(position[source]);
      node.inputs.push_back(std::move(remapped));
    }
    graph::ComputeKey(b, dag, node);
    node.params = Params(std::move(b.params));  // after the key, which reads them
    dag.nodes.push_back(std::move(node));
  }
  return dag;
}

}  // namespace seqflow

// Binding NodeSpecs to kinds: kinds, parameters (with files) and inputs, validated.
#include <map>

#include "engine/graph/build.h"

namespace seqflow::graph {
namespace {

using NodeIndex = std::map<std::string, int>;

std::string Joined(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out;
}

std::string Suggest(const std::string& word, const std::vector<std::string>& names, const std::string& otherwise) {
  std::string near = NearestName(word, names);
  return near.empty() ? otherwise : " — did you mean " + Quoted(near) + "?";
}

// "node 'x' (kind.name)", the way every message names a node.
std::string NodeText(const NodeSpec& node) { return "node " + Quoted(node.name) + " (" + node.kind + ")"; }

Result<std::vector<const KindSpec*>> ResolveKinds(const PipelineSpec& spec, const Registry& registry) {
  std::vector<const KindSpec*> kinds;
  for (const auto& node : spec.nodes) {
    const KindSpec* kind = registry.FindKind(node.kind);
    if (kind == nullptr) {
      std::vector<std::string> names;
      for (const KindSpec* k : registry.Kinds()) names.push_back(k->name);
      return Status::Invalid("unknown kind " + Quoted(node.kind) +
                                 Suggest(node.kind, names, "; `seqflow kinds` lists the kinds") + " (node " +
                                 Quoted(node.name) + ")",
                             node.kind_loc);
    }
    kinds.push_back(kind);
  }
  return kinds;
}

Status UnknownParam(const NodeSpec& node, const KindSpec& kind, const std::string& name, const SourceLoc& loc) {
  std::vector<std::string> names;
  for (const auto& p : kind.params) names.push_back(p.name);
  std::string known = names.empty() ? "; " + kind.name + " takes no parameters" : "; its parameters are " + Joined(names);
  return Status::Invalid("unknown parameter " + Quoted(name) + " of " + NodeText(node) + Suggest(name, names, known),
                         loc);
}

// Resolves a kPath value against the pipeline's folder and hashes the file, which proves it
// readable before anything runs.
Status BindPath(const std::string& dir, const std::string& name, const RawParam& raw, FileHasher& hasher,
                BoundNode& out) {
  std::string path = ResolvePath(dir, std::get<std::string>(out.params[name]));
  Result<std::string> hash = hasher.Hash(path);
  if (!hash.ok()) return Status::Invalid(hash.status().message(), raw.loc);
  out.params[name] = path;
  out.file_hashes[name] = *hash;
  return Status::Ok();
}

Status BindParams(const PipelineSpec& spec, const NodeSpec& node, FileHasher& hasher, BoundNode& out) {
  const KindSpec& kind = *out.kind;
  for (const auto& [name, raw] : node.params) {
    const ParamSpec* param = kind.FindParam(name);
    if (param == nullptr) return UnknownParam(node, kind, name, raw.loc);
    SEQFLOW_ASSIGN_OR_RETURN(out.params[name], ParseParam(*param, raw));
    if (param->type == ParamType::kPath) SEQFLOW_RETURN_IF_ERROR(BindPath(spec.dir, name, raw, hasher, out));
  }
  for (const auto& param : kind.params) {
    if (out.params.count(param.name)) continue;
    if (!param.default_value)
      return Status::Invalid(NodeText(node) + " is missing required parameter " + Quoted(param.name) + " (" +
                                 ParamTypeName(param.type) + (param.doc.empty() ? "" : ": " + param.doc) +
                                 "); add " + param.name + ": VALUE",
                             node.loc);
    out.params[param.name] = *param.default_value;
  }
  return Status::Ok();
}

std::vector<std::string> PortNames(const KindSpec& kind) {
  std::vector<std::string> names;
  for (const auto& p : kind.inputs) names.push_back(p.name);
  return names;
}

// The port a list-form or map-form reference feeds.
Result<const PortSpec*> PortOf(const NodeSpec& node, const KindSpec& kind, const InputRef& ref) {
  if (node.in_is_list) {
    if (kind.inputs.empty())
      return Status::Invalid(NodeText(node) + " takes no inputs; remove 'in'", ref.loc);
    if (kind.inputs.size() > 1 && !kind.inputs[0].list)
      return Status::Invalid(NodeText(node) + " has ports " + Joined(PortNames(kind)) +
                                 "; name them: in: {" + kind.inputs[0].name + ": NODE, ...}",
                             ref.loc);
    return &kind.inputs[0];
  }
  const PortSpec* port = kind.FindPort(ref.port);
  if (port == nullptr)
    return Status::Invalid("unknown port " + Quoted(ref.port) + " of " + NodeText(node) +
                               Suggest(ref.port, PortNames(kind), "; its ports are " + Joined(PortNames(kind))),
                           ref.loc);
  return port;
}

Result<int> SourceOf(const NodeIndex& index, const NodeSpec& node, const InputRef& ref) {
  auto it = index.find(ref.source);
  if (it != index.end()) return it->second;
  std::vector<std::string> names;
  for (const auto& [name, i] : index) names.push_back(name);
  return Status::Invalid("unknown node " + Quoted(ref.source) + " in the inputs of " + Quoted(node.name) +
                             Suggest(ref.source, names, "; no node of that name is declared under nodes:"),
                         ref.loc);
}

Status BindInputs(const PipelineSpec& spec, const Registry& registry, const NodeIndex& index,
                  const std::vector<const KindSpec*>& kinds, BoundNode& out) {
  const NodeSpec& node = *out.spec;
  std::map<std::string, std::vector<int>> by_port;
  for (const auto& ref : node.inputs) {
    SEQFLOW_ASSIGN_OR_RETURN(const PortSpec* port, PortOf(node, *out.kind, ref));
    SEQFLOW_ASSIGN_OR_RETURN(int source, SourceOf(index, node, ref));
    const KindSpec& from = *kinds[source];
    if (!registry.Accepts(*port, from.output_type))
      return Status::Invalid("port " + Quoted(port->name) + " of " + NodeText(node) + " expects " +
                                 registry.PortTypeText(*port) + ", " + NodeText(spec.nodes[source]) + " gives " +
                                 from.output_type,
                             ref.loc);
    std::vector<int>& sources = by_port[port->name];
    sources.push_back(source);
    if (!port->list && sources.size() > 1)
      return Status::Invalid("port " + Quoted(port->name) + " of " + NodeText(node) +
                                 " takes one input, got more than one (" + Quoted(spec.nodes[sources[0]].name) + ", " +
                                 Quoted(ref.source) + "); it is not a list port",
                             ref.loc);
  }
  for (const auto& port : out.kind->inputs) {
    auto it = by_port.find(port.name);
    if (it != by_port.end()) {
      out.inputs.push_back({port.name, it->second});
    } else if (!port.optional) {
      return Status::Invalid(NodeText(node) + " is missing input port " + Quoted(port.name) + " (" +
                                 registry.PortTypeText(port) + "); add in: {" + port.name + ": NODE}",
                             node.loc);
    }
  }
  return Status::Ok();
}

Result<NodeIndex> IndexNodes(const PipelineSpec& spec) {
  NodeIndex index;
  for (size_t i = 0; i < spec.nodes.size(); ++i) {
    if (!index.emplace(spec.nodes[i].name, static_cast<int>(i)).second)
      return Status::Invalid("node " + Quoted(spec.nodes[i].name) + " is defined twice", spec.nodes[i].loc);
  }
  return index;
}

}  // namespace

Result<std::vector<BoundNode>> BindNodes(const PipelineSpec& spec, const Registry& registry, FileHasher& hasher) {
  SEQFLOW_ASSIGN_OR_RETURN(NodeIndex index, IndexNodes(spec));
  SEQFLOW_ASSIGN_OR_RETURN(std::vector<const KindSpec*> kinds, ResolveKinds(spec, registry));
  std::vector<BoundNode> bound(spec.nodes.size());
  for (size_t i = 0; i < spec.nodes.size(); ++i) {
    bound[i].spec = &spec.nodes[i];
    bound[i].kind = kinds[i];
    SEQFLOW_RETURN_IF_ERROR(BindParams(spec, spec.nodes[i], hasher, bound[i]));
    SEQFLOW_RETURN_IF_ERROR(BindInputs(spec, registry, index, kinds, bound[i]));
  }
  return bound;
}

}  // namespace seqflow::graph

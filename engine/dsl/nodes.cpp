// The `nodes:` section: kind, inputs and flattened parameters of every node.
#include "engine/dsl/sections.h"

#include <cctype>

namespace seqflow::dsl {
namespace {

// A node's name becomes file names under --out (NAME.sentences.csv, ...) and the NODE of
// NODE.FIELD in --set and ablations: a '/' or '..' in it would write outside the folder, a '.'
// would split the address.
bool IsNodeName(const std::string& name) {
  if (name.empty() || name[0] == '-') return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') return false;
  return true;
}

Status CheckNodeName(const MapEntry& e) {
  if (IsNodeName(e.key)) return Status::Ok();
  return Status::Invalid("node name " + Quoted(e.key) +
                             " may hold only letters, digits, '_' and '-', not first (it names the node's files "
                             "under --out, and --set and ablations address NODE.FIELD)",
                         e.key_loc);
}

// The items of a list that must hold single values (node names, parameter values).
Result<std::vector<std::pair<std::string, SourceLoc>>> ScalarItems(const YamlNode& list, const std::string& file,
                                                                   const std::string& what) {
  std::vector<std::pair<std::string, SourceLoc>> out;
  for (const auto& item : list) {
    if (!item.IsScalar())
      return Status::Invalid(what + " must be a list of single values, got " + ShapeName(item) + " as an item",
                             LocOf(item, file));
    out.emplace_back(item.Scalar(), LocOf(item, file));
  }
  return out;
}

Status AddParam(NodeSpec& node, const std::string& name, const MapEntry& e, const std::string& file) {
  const std::string what = "parameter " + Quoted(name) + " of node " + Quoted(node.name);
  if (e.value.IsMap()) {
    SEQFLOW_ASSIGN_OR_RETURN(std::vector<MapEntry> entries, MapEntries(e.value, file, what));
    for (const auto& sub : entries) SEQFLOW_RETURN_IF_ERROR(AddParam(node, name + "." + sub.key, sub, file));
    return Status::Ok();
  }
  RawParam raw;
  raw.loc = e.value_loc;
  if (e.value.IsSequence()) {
    raw.is_list = true;
    SEQFLOW_ASSIGN_OR_RETURN(auto items, ScalarItems(e.value, file, what));
    for (auto& [text, loc] : items) raw.items.push_back(std::move(text));
  } else {
    SEQFLOW_ASSIGN_OR_RETURN(raw.scalar, ScalarText(e, what));
  }
  if (!node.params.emplace(name, std::move(raw)).second)
    return Status::Invalid(what + " is given twice (as a dotted name and inside a map); keep one", e.key_loc);
  return Status::Ok();
}

Status AddInputs(NodeSpec& node, const std::string& port, const MapEntry& e, const std::string& file) {
  const std::string what = "input " + Quoted(port) + " of node " + Quoted(node.name);
  if (e.value.IsScalar()) {
    node.inputs.push_back({port, e.value.Scalar(), e.value_loc});
    return Status::Ok();
  }
  if (!e.value.IsSequence())
    return Status::Invalid(what + " must name a node or a list of nodes, got " + ShapeName(e.value), e.value_loc);
  SEQFLOW_ASSIGN_OR_RETURN(auto items, ScalarItems(e.value, file, what));
  for (auto& [source, loc] : items) node.inputs.push_back({port, std::move(source), std::move(loc)});
  return Status::Ok();
}

Status ParseInputs(NodeSpec& node, const MapEntry& e, const std::string& file) {
  const std::string what = "'in' of node " + Quoted(node.name);
  if (e.value.IsSequence()) {
    node.in_is_list = true;
    SEQFLOW_ASSIGN_OR_RETURN(auto items, ScalarItems(e.value, file, what));
    for (auto& [source, loc] : items) node.inputs.push_back({"", std::move(source), std::move(loc)});
    return Status::Ok();
  }
  if (!e.value.IsMap())
    return Status::Invalid(what + " must be a list of node names (in: [a, b]) or a map port -> node " +
                               "(in: {data: a}), got " + ShapeName(e.value),
                           e.value_loc);
  SEQFLOW_ASSIGN_OR_RETURN(std::vector<MapEntry> ports, MapEntries(e.value, file, what));
  for (const auto& port : ports) SEQFLOW_RETURN_IF_ERROR(AddInputs(node, port.key, port, file));
  return Status::Ok();
}

Status ParseRole(NodeSpec& node, const MapEntry& e) {
  SEQFLOW_ASSIGN_OR_RETURN(std::string role, ScalarText(e, "'role' of node " + Quoted(node.name)));
  if (role == "test") {
    node.role = DataRole::kTest;
  } else if (role == "dev") {
    node.role = DataRole::kDev;
  } else {
    return Status::Invalid("'role' of node " + Quoted(node.name) + " is " + Quoted(role) +
                               "; write role: test (data only decoded and evaluated) or role: dev (data for choosing, "
                               "never for training)",
                           e.value_loc);
  }
  node.role_loc = e.value_loc;
  return Status::Ok();
}

Status ParseWaiver(NodeSpec& node, const MapEntry& e, bool* flag) {
  SEQFLOW_ASSIGN_OR_RETURN(std::string text, ScalarText(e, Quoted(e.key) + " of node " + Quoted(node.name)));
  if (text != "true" && text != "false")
    return Status::Invalid(Quoted(e.key) + " of node " + Quoted(node.name) + " is " + Quoted(text) +
                               "; write " + e.key + ": true or leave it out",
                           e.value_loc);
  *flag = text == "true";
  node.waiver_loc = e.key_loc;
  return Status::Ok();
}

Result<NodeSpec> ParseNode(const MapEntry& e, const std::string& file) {
  SEQFLOW_RETURN_IF_ERROR(CheckNodeName(e));
  if (!e.value.IsMap())
    return Status::Invalid("node " + Quoted(e.key) + " must be a map with a kind, e.g. " + e.key +
                               ": {kind: read.conll, path: data.conll}; got " + ShapeName(e.value),
                           e.value_loc);
  SEQFLOW_ASSIGN_OR_RETURN(std::vector<MapEntry> entries, MapEntries(e.value, file, "node " + Quoted(e.key)));
  NodeSpec node;
  node.name = e.key;
  node.loc = e.key_loc;
  bool has_kind = false;
  for (const auto& entry : entries) {
    if (entry.key == "kind") {
      SEQFLOW_ASSIGN_OR_RETURN(node.kind, ScalarText(entry, "'kind' of node " + Quoted(e.key)));
      node.kind_loc = entry.value_loc;
      if (node.kind.empty())
        return Status::Invalid("'kind' of node " + Quoted(e.key) + " is empty; write a kind name", entry.value_loc);
      has_kind = true;
    } else if (entry.key == "in") {
      SEQFLOW_RETURN_IF_ERROR(ParseInputs(node, entry, file));
    } else if (entry.key == "role") {
      SEQFLOW_RETURN_IF_ERROR(ParseRole(node, entry));
    } else if (entry.key == "oracle") {
      SEQFLOW_RETURN_IF_ERROR(ParseWaiver(node, entry, &node.oracle));
    } else if (entry.key == "transductive") {
      SEQFLOW_RETURN_IF_ERROR(ParseWaiver(node, entry, &node.transductive));
    } else {
      SEQFLOW_RETURN_IF_ERROR(AddParam(node, entry.key, entry, file));
    }
  }
  if (!has_kind)
    return Status::Invalid("node " + Quoted(e.key) + " has no 'kind'; add kind: KIND (`seqflow kinds` lists them)",
                           e.key_loc);
  return node;
}

}  // namespace

Result<std::vector<NodeSpec>> ParseNodes(const MapEntry& section, const std::string& file) {
  std::vector<NodeSpec> nodes;
  if (section.value.IsNull()) return nodes;
  if (!section.value.IsMap())
    return Status::Invalid("'nodes' must be a map of node name -> {kind: KIND, ...}, got " +
                               std::string(ShapeName(section.value)),
                           section.value_loc);
  SEQFLOW_ASSIGN_OR_RETURN(std::vector<MapEntry> entries, MapEntries(section.value, file, "'nodes'"));
  for (const auto& e : entries) {
    SEQFLOW_ASSIGN_OR_RETURN(NodeSpec node, ParseNode(e, file));
    nodes.push_back(std::move(node));
  }
  return nodes;
}

void ApplyField(NodeSpec& node, const std::string& field, const RawParam& value) {
  if (field == "kind") {
    node.kind = value.scalar;
    node.kind_loc = value.loc;
  } else {
    node.params[field] = value;
  }
}

std::string RawText(const RawParam& value) {
  if (!value.is_list) return value.scalar;
  std::string out = "[";
  for (size_t i = 0; i < value.items.size(); ++i) out += (i ? ", " : "") + value.items[i];
  return out + "]";
}

}  // namespace seqflow::dsl

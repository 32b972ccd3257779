#include "engine/dsl/overrides.h"

#include "engine/api/registry.h"

namespace seqflow::dsl {
namespace {

const SourceLoc kSetLoc{"--set", 0, 0};

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

RawParam ParseValue(const std::string& text) {
  RawParam value;
  value.loc = kSetLoc;
  if (text.size() < 2 || text.front() != '[' || text.back() != ']') {
    value.scalar = text;
    return value;
  }
  value.is_list = true;
  std::string inner = Trim(text.substr(1, text.size() - 2));
  for (size_t start = 0; !inner.empty() && start <= inner.size();) {
    size_t comma = inner.find(',', start);
    if (comma == std::string::npos) comma = inner.size();
    value.items.push_back(Trim(inner.substr(start, comma - start)));
    start = comma + 1;
  }
  return value;
}

Status UnknownTarget(const std::string& set, const std::string& key, const RawDoc& doc) {
  std::vector<std::string> names;
  for (const auto& [name, def] : doc.vars) names.push_back(name);
  size_t dot = key.find('.');
  for (const auto& node : doc.nodes)
    names.push_back(dot == std::string::npos ? node.name : node.name + key.substr(dot));
  std::string near = NearestName(key, names);
  return Status::Invalid("--set '" + set + "': no var or node named '" + key.substr(0, dot) + "'" +
                             (near.empty() ? "" : " — did you mean '" + near + "'?") +
                             " (set a declared var with k=v, or a node with NODE.FIELD=v)",
                         kSetLoc);
}

bool HasNode(const RawDoc& doc, const std::string& name) {
  for (const auto& node : doc.nodes)
    if (node.name == name) return true;
  return false;
}

Result<SetOverride> ParseOne(const std::string& set, const RawDoc& doc) {
  size_t eq = set.find('=');
  if (eq == std::string::npos || eq == 0)
    return Status::Invalid("--set '" + set + "' must be k=v (a var) or NODE.FIELD=v (a node's kind or parameter)",
                           kSetLoc);
  SetOverride out;
  const std::string key = Trim(set.substr(0, eq));
  out.value = ParseValue(Trim(set.substr(eq + 1)));
  size_t dot = key.find('.');
  if (doc.vars.count(key)) {
    out.var = key;
  } else if (dot != std::string::npos && HasNode(doc, key.substr(0, dot))) {
    out.node = key.substr(0, dot);
    out.field = key.substr(dot + 1);
  } else {
    return UnknownTarget(set, key, doc);
  }
  if (out.field == "in" || (dot != std::string::npos && out.field.empty()))
    return Status::Invalid("--set '" + set + "': only a node's kind or a parameter can be set, not '" + out.field + "'",
                           kSetLoc);
  if (out.value.is_list && (!out.var.empty() || out.field == "kind"))
    return Status::Invalid("--set '" + set + "': '" + key + "' takes a single value, not a list", kSetLoc);
  return out;
}

}  // namespace

Result<std::vector<SetOverride>> ParseOverrides(const Overrides& overrides, const RawDoc& doc) {
  std::vector<SetOverride> out;
  for (const auto& set : overrides.sets) {
    SEQFLOW_ASSIGN_OR_RETURN(SetOverride parsed, ParseOne(set, doc));
    out.push_back(std::move(parsed));
  }
  return out;
}

}  // namespace seqflow::dsl

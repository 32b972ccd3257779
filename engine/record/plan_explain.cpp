#include "engine/record/plan_explain.h"

#include "engine/base/hash.h"

namespace seqflow {
namespace {

std::string Shorten(const std::string& s) { return s.size() > 60 ? s.substr(0, 57) + "..." : s; }

// The first differing part, described; "" when all parts are equal.
using KeyParts = std::map<std::string, std::string>;  // DagNode::key_parts

PlanLine Diff(const KeyParts& now, const KeyParts& before) {
  PlanLine line;
  auto value = [](const KeyParts& parts, const std::string& name) {
    auto it = parts.find(name);
    return it == parts.end() ? std::string("(unset)") : it->second;
  };
  std::set<std::string> names;
  for (const auto& [k, v] : now) names.insert(k);
  for (const auto& [k, v] : before) names.insert(k);
  // The build first, then the kind, parameters and files, then inputs: the most direct cause wins.
  static const std::pair<const char*, PlanReason> kOrder[] = {{"numerics", PlanReason::kBuildChanged},
                                                             {"kind", PlanReason::kKindChanged},
                                                             {"param:", PlanReason::kParamsChanged},
                                                             {"file:", PlanReason::kFileChanged},
                                                             {"input:", PlanReason::kInputChanged}};
  for (const auto& [prefix, reason] : kOrder) {
    for (const auto& name : names) {
      if (name.rfind(prefix, 0) != 0) continue;
      std::string a = value(before, name), b = value(now, name);
      if (a == b) continue;
      line.reason = reason;
      std::string field = name.substr(name.find(':') + 1);
      if (reason == PlanReason::kKindChanged) line.detail = a + " -> " + b;
      else if (reason == PlanReason::kBuildChanged) line.detail = "numerics " + a + " -> " + b;
      else if (reason == PlanReason::kFileChanged) line.detail = field + " bytes changed";
      else if (reason == PlanReason::kInputChanged) line.detail = "input '" + field + "' changed";
      else line.detail = field + ": " + Shorten(ReadableParamText(a)) + " -> " + Shorten(ReadableParamText(b));
      return line;
    }
  }
  line.reason = PlanReason::kMissing;
  line.detail = "same key as last run, but no cache entry";
  return line;
}

std::set<int> ForcedNodes(const Dag& dag, const std::set<std::string>& force) {
  std::set<int> forced;
  for (size_t i = 0; i < dag.nodes.size(); ++i) {
    bool f = force.count(dag.nodes[i].name) > 0;
    for (const auto& in : dag.nodes[i].inputs)
      for (int s : in.sources) f = f || forced.count(s) > 0;
    if (f) forced.insert(static_cast<int>(i));
  }
  return forced;
}

}  // namespace

const char* PlanReasonName(PlanReason r) {
  switch (r) {
    case PlanReason::kCached: return "cached";
    case PlanReason::kNew: return "new";
    case PlanReason::kBuildChanged: return "build changed";
    case PlanReason::kKindChanged: return "kind changed";
    case PlanReason::kParamsChanged: return "params changed";
    case PlanReason::kFileChanged: return "file changed";
    case PlanReason::kInputChanged: return "input changed";
    case PlanReason::kMissing: return "not in cache";
    case PlanReason::kForced: return "forced";
  }
  return "?";
}

std::string RunId(const std::string& pipeline, const std::map<std::string, std::string>& ablation) {
  Hasher h;
  h.Add(pipeline);
  for (const auto& [k, v] : ablation) h.Add(k).Add(v);
  return h.HexDigest();
}

RunHistory HistoryOf(const Dag& dag) {
  RunHistory history;
  for (const DagNode& node : dag.nodes) history.nodes[node.name] = {node.key, node.key_parts};
  return history;
}

std::vector<PlanLine> ExplainPlan(const Dag& dag, const Cache& cache, const RunHistory& last,
                                  const std::set<std::string>& force) {
  std::set<int> forced = ForcedNodes(dag, force);
  std::vector<PlanLine> lines;
  for (size_t i = 0; i < dag.nodes.size(); ++i) {
    const DagNode& node = dag.nodes[i];
    PlanLine line;
    auto before = last.nodes.find(node.name);
    if (forced.count(static_cast<int>(i))) {
      line.reason = PlanReason::kForced;
    } else if (cache.Contains(node.key)) {
      line.reason = PlanReason::kCached;
    } else if (before != last.nodes.end()) {
      line = Diff(node.key_parts, before->second.parts);
    }
    line.node = node.name;
    line.kind = node.kind->name;
    line.key = node.key;
    lines.push_back(std::move(line));
  }
  return lines;
}

}  // namespace seqflow

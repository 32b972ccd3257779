#include "engine/record/plan_explain.h"

#include "engine/base/hash.h"

namespace seqflow {
namespace {

std::string Shorten(const std::string& s) { return s.size() > 60 ? s.substr(0, 57) + "..." : s; }

// The first differing part, described; "" when all parts are equal.
using KeyParts = std::map<std::string, std::string>;  // DagNode::key_parts

PlanLine Diff(const KeyParts& now, const KeyParts& before) {
  PlanLine line;
  static const std::string kUnset = "(unset)";
  // The build first, then the kind, parameters and files, then inputs: the most direct cause wins.
  static const std::pair<const char*, PlanReason> kOrder[] = {{"numerics", PlanReason::kBuildChanged},
                                                             {"kind", PlanReason::kKindChanged},
                                                             {"param:", PlanReason::kParamsChanged},
                                                             {"file:", PlanReason::kFileChanged},
                                                             {"input:", PlanReason::kInputChanged}};
  for (const auto& [prefix, reason] : kOrder) {
    // The names with this prefix in either map, in name order: one merged walk of both from the
    // prefix (a set of all names per changed node was a tenth of a plan of 10^5 changed nodes).
    auto at_now = now.lower_bound(prefix), at_before = before.lower_bound(prefix);
    // A named copy: clang before 16 cannot capture a structured binding.
    const char* const name_prefix = prefix;
    auto within = [name_prefix](KeyParts::const_iterator it, const KeyParts& parts) {
      return it != parts.end() && it->first.starts_with(name_prefix);
    };
    while (within(at_now, now) || within(at_before, before)) {
      const bool from_now = within(at_now, now) && (!within(at_before, before) || at_now->first <= at_before->first);
      const bool from_before = within(at_before, before) && (!within(at_now, now) || at_before->first <= at_now->first);
      const std::string& name = from_now ? at_now->first : at_before->first;
      const std::string& b = from_now ? at_now->second : kUnset;
      const std::string& a = from_before ? at_before->second : kUnset;
      if (from_now) ++at_now;
      if (from_before) ++at_before;
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

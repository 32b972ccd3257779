// RunRecordJson: the one writer of summary.json (the reader is run_record_read.cpp).
#include "engine/record/run_record.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

namespace seqflow {
namespace {

using Json = nlohmann::json;

Json FiniteOrNull(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

Json AttachmentJson(const AttachmentSpec& a) {
  Json j = {{"suffix", a.suffix}, {"type", AttachmentTypeName(a.type)}};
  if (a.type != AttachmentType::kTable) return j;
  j.update({{"x", a.x},
            {"x_label", a.x_label},
            {"y", a.y},
            {"y_fallback", a.y_fallback},
            {"mark_max", a.mark_max},
            {"x_is_lambda", a.x_is_lambda}});
  return j;
}

Json KindJson(const RecordSpec& spec) {
  Json attachments = Json::array();
  for (const AttachmentSpec& a : spec.attachments) attachments.push_back(AttachmentJson(a));
  Json j = {{"role", NodeRoleName(spec.role)}, {"headline", spec.headline}, {"attachments", attachments}};
  if (!spec.chosen_lambda.empty()) j["chosen_lambda"] = spec.chosen_lambda;
  if (spec.per_system) j["per_system"] = {{"p_prefix", spec.system_p_prefix}};
  return j;
}

// The node's `files` when it lists one per attachment, else where AttachmentPath puts them.
std::vector<std::string> FilesOf(const NodeRecord& node, size_t run, size_t num_runs, const std::string& name) {
  if (node.files.size() == node.attachments.size()) return node.files;
  std::vector<std::string> files;
  for (const std::string& suffix : node.attachments) files.push_back(AttachmentPath(run, num_runs, name, suffix));
  return files;
}

Json NodeJson(const NodeRecord& node, std::vector<std::string> files) {
  Json metrics = Json::object();
  for (const auto& [name, value] : node.metrics) metrics[name] = FiniteOrNull(value);
  Json j = {{"kind", node.kind},
            {"status", NodeStatusName(node.status)},
            {"seconds", FiniteOrNull(node.seconds)},
            {"key", node.key},
            {"params", node.params},
            {"metrics", metrics},
            {"attachments", node.attachments},
            {"files", std::move(files)}};
  if (!node.error.empty()) j["error"] = node.error;
  return j;
}

Json GraphJson(const GraphShape& graph) {
  Json nodes = Json::array(), edges = Json::array();
  for (const auto& node : graph.nodes) nodes.push_back({{"name", node.name}, {"kind", node.kind}});
  for (const auto& e : graph.edges)
    edges.push_back({{"from", graph.nodes[e.from].name}, {"to", graph.nodes[e.to].name}, {"port", e.port}});
  return {{"nodes", nodes}, {"edges", edges}};
}

Json RunJson(const RunRecord& run, size_t index, size_t num_runs) {
  Json nodes = Json::object();
  for (const auto& [name, node] : run.nodes) nodes[name] = NodeJson(node, FilesOf(node, index, num_runs, name));
  return {{"ablation", run.ablation},       {"axes", run.axes}, {"ok", run.ok},
          {"seconds", FiniteOrNull(run.seconds)}, {"nodes", nodes},   {"graph", GraphJson(run.graph)}};
}

bool SameGraph(const GraphShape& a, const GraphShape& b) {
  auto node_eq = [](const GraphShape::Node& x, const GraphShape::Node& y) {
    return x.name == y.name && x.kind == y.kind;
  };
  auto edge_eq = [](const GraphShape::Edge& x, const GraphShape::Edge& y) {
    return x.from == y.from && x.to == y.to && x.port == y.port;
  };
  return std::equal(a.nodes.begin(), a.nodes.end(), b.nodes.begin(), b.nodes.end(), node_eq) &&
         std::equal(a.edges.begin(), a.edges.end(), b.edges.begin(), b.edges.end(), edge_eq);
}

}  // namespace

bool RunRecord::operator==(const RunRecord& other) const {
  return ablation == other.ablation && axes == other.axes && ok == other.ok && seconds == other.seconds &&
         nodes == other.nodes && SameGraph(graph, other.graph);
}

const RecordSpec& PipelineRecord::Declared(const std::string& kind) const {
  static const RecordSpec kUndeclared;
  auto it = kinds.find(kind);
  return it == kinds.end() ? kUndeclared : it->second;
}

std::string RunRecordJson(const PipelineRecord& record) {
  Json kinds = Json::object();
  for (const auto& [name, spec] : record.kinds) kinds[name] = KindJson(spec);
  Json runs = Json::array();
  for (size_t r = 0; r < record.runs.size(); ++r) runs.push_back(RunJson(record.runs[r], r, record.runs.size()));
  Json j = {{"pipeline", record.pipeline}, {"seconds", FiniteOrNull(record.seconds)}, {"kinds", kinds}, {"runs", runs}};
  if (!record.repeat_axis.empty()) j["repeat_axis"] = record.repeat_axis;
  if (!record.build.empty()) j["build"] = record.build;
  const RunInvocation& call = record.invocation;
  if (!call.command.empty()) {
    Json invocation = {{"command", call.command}, {"set", call.sets}, {"started", call.started}, {"finished", call.finished},
                       {"host", call.host}, {"pipeline_file", call.pipeline_file}};
    if (!call.git_commit.empty()) invocation["git_commit"] = call.git_commit, invocation["git_tree"] = call.git_tree;
    j["invocation"] = invocation;
  }
  return j.dump(2) + "\n";
}

std::string AttachmentPath(size_t run, size_t num_runs, const std::string& node, const std::string& suffix) {
  return (num_runs == 1 ? "" : "run-" + std::to_string(run + 1) + "/") + node + "." + suffix;
}

std::string AttachmentFile(const PipelineRecord& record, size_t run, const std::string& node,
                           const std::string& suffix) {
  auto found = record.runs[run].nodes.find(node);
  if (found != record.runs[run].nodes.end() && found->second.files.size() == found->second.attachments.size()) {
    const std::vector<std::string>& attached = found->second.attachments;
    auto it = std::find(attached.begin(), attached.end(), suffix);
    if (it != attached.end()) return found->second.files[static_cast<size_t>(it - attached.begin())];
  }
  return AttachmentPath(run, record.runs.size(), node, suffix);
}

std::vector<DeclaredAttachment> AttachmentsOf(const PipelineRecord& record, AttachmentType type) {
  std::vector<DeclaredAttachment> out;
  for (size_t r = 0; r < record.runs.size(); ++r)
    for (const auto& [name, node] : record.runs[r].nodes)
      for (const AttachmentSpec& spec : record.Declared(node.kind).attachments) {
        bool attached =
            std::find(node.attachments.begin(), node.attachments.end(), spec.suffix) != node.attachments.end();
        if (spec.type == type && attached)
          out.push_back({r, name, &spec, AttachmentFile(record, r, name, spec.suffix)});
      }
  return out;
}

std::string SettingLabel(const std::map<std::string, std::string>& assignment) {
  if (assignment.empty()) return "base";
  std::string out;
  for (const auto& [k, v] : assignment) out += (out.empty() ? "" : ", ") + k + "=" + v;
  return out;
}

std::string RunLabel(const RunRecord& run) { return SettingLabel(run.axes.empty() ? run.ablation : run.axes); }

}  // namespace seqflow

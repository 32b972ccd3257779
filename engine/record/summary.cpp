#include "engine/record/summary.h"

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

namespace seqflow {
namespace {

nlohmann::json Number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

nlohmann::json NodeJson(const NodeOutcome& node) {
  nlohmann::json metrics = nlohmann::json::object();
  for (const auto& [name, value] : node.metrics) metrics[name] = Number(value);
  nlohmann::json j = {{"kind", node.kind},
                      {"status", NodeStatusName(node.status)},
                      {"seconds", Number(node.seconds)},
                      {"key", node.key},
                      {"metrics", metrics}};
  if (!node.error.ok()) j["error"] = node.error.ToString();
  return j;
}

nlohmann::json GraphJson(const GraphShape& graph) {
  nlohmann::json nodes = nlohmann::json::array(), edges = nlohmann::json::array();
  for (const auto& node : graph.nodes) nodes.push_back({{"name", node.name}, {"kind", node.kind}});
  for (const auto& e : graph.edges)
    edges.push_back({{"from", graph.nodes[e.from].name}, {"to", graph.nodes[e.to].name}, {"port", e.port}});
  return {{"nodes", nodes}, {"edges", edges}};
}

Result<GraphShape> GraphFromJson(const nlohmann::json& j) {
  GraphShape graph;
  std::map<std::string, int> index;
  for (const auto& node : j.value("nodes", nlohmann::json::array())) {
    index[node.value("name", "")] = static_cast<int>(graph.nodes.size());
    graph.nodes.push_back({node.value("name", ""), node.value("kind", "")});
  }
  for (const auto& edge : j.value("edges", nlohmann::json::array())) {
    auto from = index.find(edge.value("from", "")), to = index.find(edge.value("to", ""));
    if (from == index.end() || to == index.end() || from->second >= to->second)
      return Status::Invalid("graph edge " + edge.dump() + " does not join two nodes in topological order");
    graph.edges.push_back({from->second, to->second, edge.value("port", "")});
  }
  return graph;
}

std::string AttachmentDir(const std::string& out_dir, size_t run, size_t num_runs) {
  return num_runs == 1 ? out_dir : JoinPath(out_dir, "run-" + std::to_string(run));
}

}  // namespace

std::string AttachmentPath(size_t run, size_t num_runs, const std::string& node, const std::string& suffix) {
  return (num_runs == 1 ? "" : "run-" + std::to_string(run) + "/") + node + "." + suffix;
}

std::string SummaryJson(const PipelineRecord& record) {
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& run : record.runs) {
    nlohmann::json nodes = nlohmann::json::object();
    for (const auto& node : run.result.nodes) nodes[node.name] = NodeJson(node);
    runs.push_back({{"ablation", run.ablation},
                    {"axes", run.axes},
                    {"ok", run.result.ok()},
                    {"seconds", Number(run.result.seconds)},
                    {"nodes", nodes},
                    {"graph", GraphJson(run.graph)}});
  }
  nlohmann::json j = {{"pipeline", record.pipeline}, {"seconds", Number(record.seconds)}, {"runs", runs}};
  if (!record.repeat_axis.empty()) j["repeat_axis"] = record.repeat_axis;
  return j.dump(2) + "\n";
}

Result<std::vector<GraphShape>> RunGraphs(std::string_view summary_json) {
  nlohmann::json j = nlohmann::json::parse(summary_json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || !j.contains("runs") || !j["runs"].is_array())
    return Status::Invalid("summary.json is not a run record (no \"runs\" array)");
  std::vector<GraphShape> graphs;
  try {
    for (const auto& run : j["runs"]) {
      Result<GraphShape> graph = run.contains("graph") ? GraphFromJson(run["graph"]) : Result<GraphShape>(GraphShape{});
      if (!graph.ok()) return graph.status();
      graphs.push_back(std::move(*graph));
    }
  } catch (const nlohmann::json::exception& e) {
    return Status::Invalid(std::string("summary.json graph: ") + e.what());
  }
  return graphs;
}

Status WriteRunRecord(const std::string& out_dir, const PipelineRecord& record, Env* env) {
  SEQFLOW_RETURN_IF_ERROR(env->CreateDirs(out_dir));
  SEQFLOW_RETURN_IF_ERROR(env->WriteFileAtomic(JoinPath(out_dir, "summary.json"), SummaryJson(record)));
  for (size_t r = 0; r < record.runs.size(); ++r) {
    std::string dir = AttachmentDir(out_dir, r, record.runs.size());
    for (const auto& node : record.runs[r].result.nodes) {
      if (node.attachments.empty()) continue;
      SEQFLOW_RETURN_IF_ERROR(env->CreateDirs(dir));
      for (const auto& [suffix, content] : node.attachments)
        SEQFLOW_RETURN_IF_ERROR(env->WriteFileAtomic(JoinPath(dir, node.name + "." + suffix), content));
    }
  }
  return Status::Ok();
}

}  // namespace seqflow

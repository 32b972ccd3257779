#include "engine/record/summary.h"

#include <cmath>
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

std::string AttachmentDir(const std::string& out_dir, size_t run, size_t num_runs) {
  return num_runs == 1 ? out_dir : JoinPath(out_dir, "run-" + std::to_string(run));
}

}  // namespace

std::string SummaryJson(const PipelineRecord& record) {
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& run : record.runs) {
    nlohmann::json nodes = nlohmann::json::object();
    for (const auto& node : run.result.nodes) nodes[node.name] = NodeJson(node);
    runs.push_back({{"ablation", run.ablation},
                    {"axes", run.axes},
                    {"ok", run.result.ok()},
                    {"seconds", Number(run.result.seconds)},
                    {"nodes", nodes}});
  }
  nlohmann::json j = {{"pipeline", record.pipeline}, {"seconds", Number(record.seconds)}, {"runs", runs}};
  return j.dump(2) + "\n";
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

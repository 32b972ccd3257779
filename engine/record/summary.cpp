#include "engine/record/summary.h"

namespace seqflow {
namespace {

NodeRecord RecordOf(const NodeOutcome& outcome) {
  NodeRecord node;
  node.kind = outcome.kind;
  node.status = outcome.status;
  node.seconds = outcome.seconds;
  node.key = outcome.key;
  node.metrics = outcome.metrics;
  for (const auto& [suffix, content] : outcome.attachments) node.attachments.push_back(suffix);
  if (!outcome.error.ok()) node.error = outcome.error.ToString();
  return node;
}

std::string AttachmentDir(const std::string& out_dir, size_t run, size_t num_runs) {
  return num_runs == 1 ? out_dir : JoinPath(out_dir, "run-" + std::to_string(run + 1));
}

}  // namespace

void AppendRun(PipelineRecord& record, const Dag& dag, const RunResult& result,
               const std::map<std::string, std::string>& ablation, const std::map<std::string, std::string>& axes) {
  RunRecord run;
  run.ablation = ablation;
  run.axes = axes;
  run.ok = result.ok();
  run.seconds = result.seconds;
  for (const NodeOutcome& outcome : result.nodes) run.nodes[outcome.name] = RecordOf(outcome);
  for (const DagNode& node : dag.nodes) {
    auto recorded = run.nodes.find(node.name);
    if (recorded == run.nodes.end()) continue;
    for (const auto& [name, value] : node.params.values()) recorded->second.params[name] = FormatParamValue(value);
  }
  run.graph = ShapeOf(dag);
  for (const DagNode& node : dag.nodes) record.kinds[node.kind->name] = node.kind->record;
  record.runs.push_back(std::move(run));
}

Status WriteRunRecord(const std::string& out_dir, const PipelineRecord& record, const std::vector<RunResult>& results,
                      const std::vector<std::string>& resolved, Env* env) {
  if (results.size() != record.runs.size() || resolved.size() != record.runs.size())
    return Status::Internal("run record: " + std::to_string(record.runs.size()) + " runs but " +
                            std::to_string(results.size()) + " results and " + std::to_string(resolved.size()) +
                            " resolved pipelines");
  SEQFLOW_RETURN_IF_ERROR(env->CreateDirs(out_dir));
  SEQFLOW_RETURN_IF_ERROR(env->WriteFileAtomic(JoinPath(out_dir, "summary.json"), RunRecordJson(record)));
  for (size_t r = 0; r < results.size(); ++r) {
    std::string dir = AttachmentDir(out_dir, r, results.size());
    SEQFLOW_RETURN_IF_ERROR(env->CreateDirs(dir));
    SEQFLOW_RETURN_IF_ERROR(env->WriteFileAtomic(JoinPath(dir, "resolved.yaml"), resolved[r]));
    for (const NodeOutcome& node : results[r].nodes) {
      if (node.attachments.empty()) continue;
      SEQFLOW_RETURN_IF_ERROR(env->CreateDirs(dir));
      for (const auto& [suffix, content] : node.attachments)
        SEQFLOW_RETURN_IF_ERROR(env->WriteFileAtomic(JoinPath(dir, node.name + "." + suffix), content));
    }
  }
  return Status::Ok();
}

}  // namespace seqflow

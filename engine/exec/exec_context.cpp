#include "engine/exec/exec_context.h"

namespace seqflow {

ExecContext::ExecContext(RunState& run, int index) : run_(run), node_(run.dag.nodes[index]) {}

std::vector<ArtifactPtr> ExecContext::inputs(std::string_view port) const {
  if (node_.kind->FindPort(port) == nullptr)
    throw StatusError(Status::Invalid("kind " + node_.kind->name + " has no input port '" + std::string(port) + "'"));
  std::vector<ArtifactPtr> out;
  for (const DagInput& input : node_.inputs) {
    if (input.port != port) continue;
    for (int source : input.sources) out.push_back(run_.artifacts[source]);
  }
  return out;
}

void ExecContext::Metric(const std::string& name, double value) {
  std::lock_guard<std::mutex> lock(mu_);
  metrics_[name] = value;
}

void ExecContext::Attach(const std::string& suffix, std::string content) {
  std::lock_guard<std::mutex> lock(mu_);
  attachments_.emplace_back(suffix, std::move(content));
}

void ExecContext::Progress(int64_t done, int64_t total) {
  run_.Emit(ExecEvent{ExecEvent::kProgress, nullptr, node_.name, done, total});
}

std::map<std::string, double> ExecContext::TakeMetrics() {
  std::lock_guard<std::mutex> lock(mu_);
  return std::move(metrics_);
}

std::vector<std::pair<std::string, std::string>> ExecContext::TakeAttachments() {
  std::lock_guard<std::mutex> lock(mu_);
  return std::move(attachments_);
}

}  // namespace seqflow

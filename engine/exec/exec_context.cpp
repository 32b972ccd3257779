#include "engine/exec/exec_context.h"

#include "engine/base/log.h"

namespace seqflow {

ExecContext::ExecContext(RunState& run, int index)
    : run_(run), index_(index), node_(run.dag.nodes[index]), pieces_(run.cache.dir(), node_.key, run.cache.env()) {}

std::vector<ArtifactPtr> ExecContext::inputs(std::string_view port) const {
  if (node_.kind->FindPort(port) == nullptr)
    throw StatusError(Status::Invalid("kind " + node_.kind->name + " has no input port '" + std::string(port) + "'"));
  std::vector<ArtifactPtr> out;
  for (const DagInput& input : node_.inputs) {
    if (input.port != port) continue;
    for (int source : input.sources) out.push_back(run_.Input(source));
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

void ExecContext::Progress(int64_t done, int64_t total, const std::string& note) {
  run_.Emit(ExecEvent{ExecEvent::kProgress, nullptr, node_.name, done, total, note});
}

std::optional<std::string> ExecContext::ResumeState() {
  std::optional<StateSource> source = ResumeSource();
  if (!source) return std::nullopt;
  Result<std::string> state = std::move(*source).Join();
  if (!state.ok()) {
    LogWarning("node '" + node_.name + "': " + state.status().ToString() + "; starting over");
    return std::nullopt;
  }
  return std::move(state).value();
}

std::optional<StateSource> ExecContext::ResumeSource() {
  Result<std::optional<StateSource>> state = run_.checkpoints.LoadSource(node_.key);
  if (!state.ok()) {
    LogWarning("node '" + node_.name + "': " + state.status().ToString() + "; starting over");
    return std::nullopt;
  }
  if (*state) {
    LogInfo("node '" + node_.name + "': resuming from its checkpoint " + run_.checkpoints.PathOf(node_.key));
    return std::move(*state);
  }
  std::optional<std::string> kept = Continuation();
  return kept ? std::optional<StateSource>(StateSource(std::move(*kept))) : std::nullopt;
}

std::optional<std::string> ExecContext::Continuation() {
  if (node_.family_key.empty() || run_.forced[index_]) return std::nullopt;
  auto starting_over = [&](const Status& why) {
    LogWarning("node '" + node_.name + "': " + why.ToString() + "; starting over");
    return std::nullopt;
  };
  Result<std::optional<KeptFinalState>> kept =
      run_.final_states.Find(node_.family_key, node_.kind->budget, BudgetOf(*node_.kind, node_.params));
  if (!kept.ok()) return starting_over(kept.status());
  if (!*kept) return std::nullopt;
  Result<std::string> state = run_.final_states.Load(node_.family_key, (*kept)->key);
  if (!state.ok()) return starting_over(state.status());
  LogInfo("node '" + node_.name + "': continues from iteration " + std::to_string((*kept)->iteration) +
          ", the final state of entry " + (*kept)->key);
  return std::move(state).value();
}

void ExecContext::KeepFinalState(int64_t iteration, const std::function<std::string()>& state) {
  const ProcessGroup* processes = run_.options.processes;
  if (node_.family_key.empty() || (processes != nullptr && processes->rank() != 0)) return;
  Status kept = run_.final_states.Store(node_.family_key, node_.key, iteration, BudgetOf(*node_.kind, node_.params),
                                        state());
  if (!kept.ok()) LogWarning("node '" + node_.name + "': cannot keep its final state: " + kept.ToString());
}

void ExecContext::Checkpoint(const std::function<StatePieces()>& state) {
  const ProcessGroup* processes = run_.options.processes;
  if (processes != nullptr && processes->rank() != 0) return;  // rank 0 writes for the job
  const auto now = std::chrono::steady_clock::now();
  if (now - last_checkpoint_ < std::chrono::duration<double>(run_.options.checkpoint_seconds)) return;
  last_checkpoint_ = now;
  Status saved = run_.checkpoints.Store(node_.key, state());
  if (!saved.ok() && !checkpoint_failed_) {
    checkpoint_failed_ = true;
    LogWarning("node '" + node_.name + "': cannot save its checkpoint: " + saved.ToString());
  }
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

// ExecContext: the NodeContext a node body sees while the executor runs it. Inputs are the
// upstream artifacts already published in the RunState; metrics and attachments are collected
// here until the executor validates and stores them.
// Thread safety: one context per running node; Metric/Attach/Progress may be called from the
// kernel's worker threads.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "engine/api/node.h"
#include "engine/cache/artifact_pieces.h"
#include "engine/exec/node_runner.h"

namespace seqflow {

class ExecContext final : public NodeContext {
 public:
  // REQUIRES: `run` outlives the context and the inputs of node `index` are published.
  ExecContext(RunState& run, int index);

  const std::string& node_name() const override { return node_.name; }
  const Params& params() const override { return node_.params; }
  std::vector<ArtifactPtr> inputs(std::string_view port) const override;
  void Metric(const std::string& name, double value) override;
  void Attach(const std::string& suffix, std::string content) override;
  using NodeContext::Progress;
  void Progress(int64_t done, int64_t total, const std::string& note) override;
  CancelToken cancellation() const override { return CancelToken(&run_.failed, run_.options.interrupted); }
  int threads() const override { return run_.options.threads; }
  const ProcessGroup* processes() const override { return run_.options.processes; }
  Result<std::string> ReadFile(const std::string& path) const override { return run_.env->ReadFile(path); }
  PieceStore* pieces() const override { return &pieces_; }
  std::optional<std::string> ResumeState() override;
  std::optional<StateSource> ResumeSource() override;
  void Checkpoint(const std::function<StatePieces()>& state) override;
  void KeepFinalState(int64_t iteration, const std::function<std::string()>& state) override;

  // What the body reported; call after it returned.
  std::map<std::string, double> TakeMetrics();
  std::vector<std::pair<std::string, std::string>> TakeAttachments();

 private:
  // The final state of a run of this node's family with a smaller budget, if any.
  std::optional<std::string> Continuation();

  RunState& run_;
  const int index_;
  const DagNode& node_;
  std::mutex mu_;
  std::map<std::string, double> metrics_;
  std::vector<std::pair<std::string, std::string>> attachments_;
  std::chrono::steady_clock::time_point last_checkpoint_ = std::chrono::steady_clock::now();
  bool checkpoint_failed_ = false;  // warned once
  mutable ArtifactPieces pieces_;    // in the cache directory, owned by this node's key
};

}  // namespace seqflow

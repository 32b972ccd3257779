// FakeNodeContext: runs a node body without the engine, with in-memory files and list ports.
// Parameters start from the kind's declared defaults with overrides applied; metrics are
// collected for inspection, as are attachments and, when asked (KeepStates), the states the body
// offers and keeps. Shared by the node tests of every family.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/api/node.h"
#include "engine/api/registry.h"

namespace seqflow::testutil {

class FakeNodeContext final : public NodeContext {
 public:
  // REQUIRES: every parameter of `kind` has a default or an override.
  explicit FakeNodeContext(const KindSpec& kind, std::map<std::string, ParamValue> overrides = {}, int threads = 1)
      : name_(kind.name), threads_(threads) {
    std::map<std::string, ParamValue> values;
    for (const ParamSpec& p : kind.params)
      if (p.default_value) values[p.name] = *p.default_value;
    for (auto& [k, v] : overrides) values[k] = std::move(v);
    params_ = Params(std::move(values));
  }

  void AddInput(const std::string& port, ArtifactPtr artifact) { inputs_[port].push_back(std::move(artifact)); }
  void SetInput(const std::string& port, ArtifactPtr artifact) { inputs_[port] = {std::move(artifact)}; }
  void AddFile(const std::string& path, std::string bytes) { files_[path] = std::move(bytes); }
  // The store pieces() gives (testutil/memory_piece_store.h); none by default.
  void SetPieces(PieceStore* store) { pieces_ = store; }
  // The group processes() gives (testutil/thread_process_group.h); none by default.
  void SetProcesses(const ProcessGroup* group) { processes_ = group; }
  const std::map<std::string, double>& metrics() const { return metrics_; }
  const std::map<std::string, std::string>& attachments() const { return attachments_; }  // suffix -> text
  // Keeps the states the body offers (Checkpoint, joined) and the one it ends in (KeepFinalState),
  // for tests of their bytes. Off by default: a state is encoded only when kept, as the engine
  // encodes one only when it saves it.
  void KeepStates() { keep_states_ = true; }
  const std::vector<std::string>& checkpoints() const { return checkpoints_; }
  const std::string& final_state() const { return final_state_; }

  const std::string& node_name() const override { return name_; }
  const Params& params() const override { return params_; }
  std::vector<ArtifactPtr> inputs(std::string_view port) const override {
    auto it = inputs_.find(std::string(port));
    return it == inputs_.end() ? std::vector<ArtifactPtr>{} : it->second;
  }
  void Metric(const std::string& name, double value) override { metrics_[name] = value; }
  void Attach(const std::string& suffix, std::string content) override { attachments_[suffix] = std::move(content); }
  using NodeContext::Progress;
  void Progress(int64_t, int64_t, const std::string&) override {}
  void Checkpoint(const std::function<StatePieces()>& state) override {
    if (keep_states_) checkpoints_.push_back(state().Join());
  }
  void KeepFinalState(int64_t, const std::function<std::string()>& state) override {
    if (keep_states_) final_state_ = state();
  }
  CancelToken cancellation() const override { return CancelToken(&cancelled_); }
  void Cancel() { cancelled_ = true; }
  int threads() const override { return threads_; }
  Result<std::string> ReadFile(const std::string& path) const override {
    auto it = files_.find(path);
    if (it == files_.end()) return Status::NotFound("no such file: " + path);
    return it->second;
  }
  PieceStore* pieces() const override { return pieces_; }
  const ProcessGroup* processes() const override { return processes_; }

 private:
  std::string name_;
  int threads_;
  Params params_;
  std::map<std::string, std::vector<ArtifactPtr>> inputs_;
  std::map<std::string, std::string> files_;
  std::map<std::string, double> metrics_;
  std::map<std::string, std::string> attachments_;
  bool keep_states_ = false;
  std::vector<std::string> checkpoints_;
  std::string final_state_;
  std::atomic<bool> cancelled_{false};
  PieceStore* pieces_ = nullptr;
  const ProcessGroup* processes_ = nullptr;
};

}  // namespace seqflow::testutil

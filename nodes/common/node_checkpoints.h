// A node's side of its kernel's checkpoints (kernel_checkpoints.h): the state NodeContext gives the
// node to resume from, the kernel's offers passed to NodeContext::Checkpoint, and its final state
// to NodeContext::KeepFinalState (which the engine keeps only for kinds with budget parameters,
// KindSpec::Continuing, without encoding it for the others).
// Not copyable: the kernel's view points into the state held here.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "engine/api/node.h"
#include "nodes/common/kernel_checkpoints.h"

namespace seqflow {

class NodeCheckpoints {
 public:
  explicit NodeCheckpoints(NodeContext& ctx) : saved_(ctx.ResumeState()) {
    if (saved_) kernel_.resume_from = &*saved_;
    kernel_.offer = [&ctx](const std::function<StatePieces()>& encode) { ctx.Checkpoint(encode); };
    kernel_.keep_final = [&ctx](int64_t iterations, const std::function<std::string()>& encode) {
      ctx.KeepFinalState(iterations, encode);
    };
  }
  NodeCheckpoints(const NodeCheckpoints&) = delete;
  NodeCheckpoints& operator=(const NodeCheckpoints&) = delete;

  const KernelCheckpoints& kernel() const { return kernel_; }

 private:
  std::optional<std::string> saved_;
  KernelCheckpoints kernel_;
};

}  // namespace seqflow

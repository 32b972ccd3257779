// How a long kernel takes part in its node's checkpoints (NodeContext::ResumeState / Checkpoint /
// KeepFinalState, DESIGN §11) while staying free of I/O: it is handed the bytes of a state to
// continue from, offers its state between iterations as a function that encodes it (the engine
// calls it only when a save is due; in pieces, engine/base/state_pieces.h, so that large tables
// are written from where they live — a string is one piece) and, when its iteration budget ran
// out, the state it stopped in, from which a run with a larger budget continues.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "engine/base/state_pieces.h"

namespace seqflow {

struct KernelCheckpoints {
  // A state the kernel offered before; one that does not fit the inputs is Status::Invalid.
  const std::string* resume_from = nullptr;
  std::function<void(const std::function<StatePieces()>& encode)> offer;  // optional
  // Optional; `iterations` done when the budget stopped the kernel.
  std::function<void(int64_t iterations, const std::function<std::string()>& encode)> keep_final;
};

}  // namespace seqflow

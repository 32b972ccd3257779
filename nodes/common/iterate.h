// The loop every iterative kernel runs in: the kernel declares its state (StateTable), its step and
// when it stops; Iterate owns cancellation, checkpoints, resuming and continuing on a raised
// budget, so no kernel writes them again:
//
//   IterativeKernel<EpochState> kernel{"multiview.perceptron", &table, options.epochs,
//                                      [](const EpochState& s) { return s.epochs.size(); },
//                                      [&](EpochState& s) -> Result<Step> { ...; return Step::kContinue; }};
//   SEQFLOW_ASSIGN_OR_RETURN(Stopped stopped, Iterate(kernel, state, cancel, checkpoints));
//
// The token is checked before each step; the state after each step that did not end the kernel is
// offered (KernelCheckpoints::offer); a run that spent its budget keeps its final state, from which
// a run under a larger budget continues to the bits of one never stopped. A state resumed from is
// read with the kernel's table and must lie within the budget. Progress and traces are the step's:
// it knows what an iteration reports.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "engine/base/cancel.h"
#include "engine/base/status.h"
#include "nodes/common/kernel_checkpoints.h"
#include "nodes/common/state_table.h"

namespace seqflow {

enum class Step {
  kContinue,  // the state moved on: offer it, then step again unless the budget is spent
  kDone,      // the kernel reached its end (converged, or no more to do)
};

enum class Stopped { kDone, kBudget };

template <class S>
struct IterativeKernel {
  std::string name;  // in the cancellation and resume errors
  const StateTable<S>* table = nullptr;
  int64_t budget = 0;                     // iterations a run makes in all, those of a resumed state included
  std::function<int64_t(const S&)> done;  // iterations the state has made
  std::function<Result<Step>(S&)> step;
};

// REQUIRES: `state` is the kernel's start (and holds the run's shapes a resumed state is read into).
template <class S>
Result<Stopped> Iterate(const IterativeKernel<S>& kernel, S& state, const CancelToken& cancel,
                        const KernelCheckpoints& checkpoints) {
  if (checkpoints.resume_from != nullptr) {
    SEQFLOW_RETURN_IF_ERROR(kernel.table->Decode(*checkpoints.resume_from, state));
    if (kernel.done(state) > kernel.budget)
      return Status::Invalid(kernel.name + ": the state to resume from (iteration " +
                             std::to_string(kernel.done(state)) + ") is past these options' " +
                             std::to_string(kernel.budget) + " iterations");
  }
  auto encode = [&] { return kernel.table->Encode(state); };
  while (kernel.done(state) < kernel.budget) {
    SEQFLOW_RETURN_IF_ERROR(cancel.Check(kernel.name));
    SEQFLOW_ASSIGN_OR_RETURN(const Step step, kernel.step(state));
    if (step == Step::kDone) return Stopped::kDone;
    if (checkpoints.offer) checkpoints.offer(encode);
  }
  if (checkpoints.keep_final) checkpoints.keep_final(kernel.done(state), [&] { return encode().Join(); });
  return Stopped::kBudget;
}

}  // namespace seqflow

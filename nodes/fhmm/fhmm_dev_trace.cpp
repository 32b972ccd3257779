#include "nodes/fhmm/fhmm_dev_trace.h"

#include "nodes/common/state_table.h"

namespace seqflow {
namespace {

// `shape`: the dimensions a best model read back must have.
StateTable<FhmmDevTrace> DevTraceTable(const HmmParams& shape) {
  auto save_best = [](const FhmmDevTrace& t, StatePieces& out) {
    out.writer().U8(t.best ? 1 : 0);
    if (!t.best) return;
    const HmmParams& b = *t.best;
    out.writer().F64s(b.initial.data(), static_cast<size_t>(b.initial.size()));
    out.writer().F64s(b.transition.data(), static_cast<size_t>(b.transition.size()));
    out.writer().F64s(b.emission.data(), static_cast<size_t>(b.emission.size()));
  };
  auto load_best = [shape](FhmmDevTrace& t, StateIn& in) {
    if (in.U8() == 0) return true;
    HmmParams b = shape;
    if (!in.F64sInto(b.initial.data(), static_cast<size_t>(b.initial.size())) ||
        !in.F64sInto(b.transition.data(), static_cast<size_t>(b.transition.size())) ||
        !in.F64sInto(b.emission.data(), static_cast<size_t>(b.emission.size())))
      return false;
    t.best = std::move(b);
    return true;
  };
  return StateTable<FhmmDevTrace>("fhmm.em")
      .Doubles(&FhmmDevTrace::accuracy)
      .Custom(save_best, load_best)
      .I64(&FhmmDevTrace::best_iteration);
}

}  // namespace

std::string AppendDevTrace(std::string em_state, const FhmmDevTrace& trace) {
  return WithTrailer(std::move(em_state), DevTraceTable(HmmParams()).Encode(trace).Join()).Join();
}

std::optional<std::pair<std::string, FhmmDevTrace>> SplitDevTrace(const std::string& bytes, const HmmParams& shape) {
  StateSource state(bytes);
  const std::optional<std::string> trailer = TakeTrailer(state);
  FhmmDevTrace trace;
  if (!trailer || !DevTraceTable(shape).Decode(*trailer, trace).ok()) return std::nullopt;
  Result<std::string> em_state = std::move(state).Join();
  if (!em_state.ok()) return std::nullopt;
  return std::make_pair(std::move(em_state).value(), std::move(trace));
}

}  // namespace seqflow

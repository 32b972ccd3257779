// What fhmm.em tracks across EM iterations besides EM's own state (fhmm_em.h): the dev accuracy
// of every iteration seen and the best model so far. Appended to the kernel's checkpoint, then
// its length, so a resumed run's trace and dev-best choice are the uninterrupted run's.
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "nodes/hmm/hmm_params.h"

namespace seqflow {

struct FhmmDevTrace {
  std::vector<double> accuracy;  // per iteration seen, 0 = the start
  std::optional<HmmParams> best;
  int best_iteration = 0;
};

std::string AppendDevTrace(std::string em_state, const FhmmDevTrace& trace);
// {EM's state, the trace}; nullopt when the bytes do not end in a trace whose best model has the
// dimensions of `shape` (EM's part is checked by RunFhmmEm).
std::optional<std::pair<std::string, FhmmDevTrace>> SplitDevTrace(const std::string& bytes, const HmmParams& shape);

}  // namespace seqflow

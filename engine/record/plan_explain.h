// Why each node of a run would be computed: `seqflow plan` (DESIGN §6, §11).
//
// After every run, the keys and key parts of its nodes (kind@version, canonical parameters, file
// hashes, input keys) are kept in the cache as the run's history (Cache::StoreRunHistory), under
// id = hash(pipeline name, ablation). The next plan compares the current parts with those and
// names the difference: the parameter with its old and new value, the file, the input, or the
// kind.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/cache/cache.h"
#include "engine/graph/dag.h"

namespace seqflow {

enum class PlanReason {
  kCached,
  kNew,
  kBuildChanged,  // another build's numerics (engine/base/numerics.h) made the last run's entries
  kKindChanged,
  kParamsChanged,
  kFileChanged,
  kInputChanged,
  kMissing,
  kForced
};
const char* PlanReasonName(PlanReason r);  // "cached", "new", "kind changed", ...

struct PlanLine {
  std::string node;
  std::string kind;
  std::string key;
  PlanReason reason = PlanReason::kNew;
  std::string detail;  // e.g. "smoothing.emission: 0.05 -> 0.1"
};

std::string RunId(const std::string& pipeline, const std::map<std::string, std::string>& ablation);
// The history Cache::StoreRunHistory keeps of a run of `dag`.
RunHistory HistoryOf(const Dag& dag);

// One line per node of `dag`, in its order (lines[i] explains dag.nodes[i]). `last` is the history
// of the previous run (empty when there was none); `force` names nodes whose descendants are forced
// too.
std::vector<PlanLine> ExplainPlan(const Dag& dag, const Cache& cache, const RunHistory& last,
                                  const std::set<std::string>& force);

}  // namespace seqflow

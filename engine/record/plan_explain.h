// Why each node of a run would be computed: `seqflow plan` (DESIGN §6, §11).
//
// After every run, the key parts of its nodes (kind@version, canonical parameters, file hashes,
// input keys) are saved under <cache>/runs/<id>.json, id = hash(pipeline name, ablation). The
// next plan compares the current parts with those and names the difference: the parameter with
// its old and new value, the file, the input, or the kind.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/base/env.h"
#include "engine/cache/cache.h"
#include "engine/graph/dag.h"

namespace seqflow {

using KeyParts = std::map<std::string, std::string>;         // DagNode::key_parts
using RunKeyParts = std::map<std::string, KeyParts>;          // node name -> parts

enum class PlanReason { kCached, kNew, kKindChanged, kParamsChanged, kFileChanged, kInputChanged, kMissing, kForced };
const char* PlanReasonName(PlanReason r);  // "cached", "new", "kind changed", ...

struct PlanLine {
  std::string node;
  std::string kind;
  std::string key;
  PlanReason reason = PlanReason::kNew;
  std::string detail;  // e.g. "smoothing.emission: 0.05 -> 0.1"
};

std::string RunId(const std::string& pipeline, const std::map<std::string, std::string>& ablation);
// Empty when no run was recorded yet.
RunKeyParts LoadRunKeyParts(const std::string& cache_dir, const std::string& run_id, Env* env);
Status SaveRunKeyParts(const std::string& cache_dir, const std::string& run_id, const Dag& dag, Env* env);

// `force` names nodes whose descendants are forced too.
std::vector<PlanLine> ExplainPlan(const Dag& dag, const Cache& cache, const RunKeyParts& last,
                                  const std::set<std::string>& force);

}  // namespace seqflow

// What every subcommand shares: the registry, and a pipeline file turned into validated runs.
#pragma once

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/api/registry.h"
#include "engine/base/env.h"
#include "engine/dsl/spec.h"
#include "engine/graph/dag.h"

namespace seqflow::cli {

struct PipelineArgs {
  std::string path;
  std::vector<std::string> sets;  // --set k=v
  std::string ablation;           // --ablation NAME ("" = every axis, as a grid)
  size_t max_node_instances = kMaxNodeInstances;  // runs x nodes (ExpandAblations)
};

struct PlannedRun {
  RunVariant variant;  // its spec emptied once `dag` is built from it (10^5 nodes take memory)
  Dag dag;
};

struct Pipeline {
  std::string name;
  std::vector<PlannedRun> runs;
  bool repeated = false;  // the runs repeat over seeds (axes[kRepeatAxis] is each run's seed)
};

// The registry with every node kind seqflow ships. Built once; never deleted.
const Registry& TheRegistry();

// Parses, expands ablations and validates every run before anything executes; the first error
// (with file:line:col) is returned.
Result<Pipeline> LoadPipeline(const PipelineArgs& args, Env* env, FileHasher& hasher);
// LoadPipeline, then CheckForcedNodes for `forced` (--force), that logs the first error; nullopt
// then (exit code 2).
std::optional<Pipeline> LoadPipelineOrLog(const PipelineArgs& args, Env* env, FileHasher& hasher,
                                          const std::set<std::string>& forced = {});

// Status::Invalid naming the first of `forced` (--force NODE) that is no node of the pipeline, with
// the nearest name; a typo would otherwise force nothing.
Status CheckForcedNodes(const Pipeline& pipeline, const std::set<std::string>& forced);

// --cache DIR, else $SEQFLOW_CACHE, else .seqflow/cache in the working directory.
std::string CacheDir(const std::string& flag);

}  // namespace seqflow::cli

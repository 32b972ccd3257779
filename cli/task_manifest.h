// TaskManifest: what `seqflow run-node KEY` needs to find the node instance a key names —
// <cache>/tasks/<key>.json, written by the sweep's driver before it submits the task. The node is
// found again by planning the same pipeline with the same overrides; the key it plans to must be
// the manifest's, so a pipeline or data file edited after submission is an error, not a wrong
// entry under an old key.
#pragma once

#include <string>

#include "cli/session.h"
#include "engine/base/env.h"
#include "engine/base/status.h"

namespace seqflow::cli {

struct TaskManifest {
  PipelineArgs pipeline;  // path absolute
  int run = 0;            // index into the planned runs
  std::string node;
  std::string key;
};

std::string TaskManifestPath(const std::string& cache_dir, const std::string& key);
Status WriteTaskManifest(Env* env, const std::string& cache_dir, const TaskManifest& manifest);
// NotFound naming the file and how tasks are made when there is none.
Result<TaskManifest> ReadTaskManifest(Env* env, const std::string& cache_dir, const std::string& key);

}  // namespace seqflow::cli

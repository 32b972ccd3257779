// The run record (DESIGN §8): DIR/summary.json with every run's per-node status, seconds, key
// and metrics, plus each node's attachments as DIR/<node>.<suffix> (DIR/run-<i>/… when an
// invocation has several ablation runs).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/base/env.h"
#include "engine/exec/executor.h"

namespace seqflow {

struct RunRecord {
  std::map<std::string, std::string> ablation;  // "NODE.FIELD" -> value; empty for the base run
  std::map<std::string, std::string> axes;      // axis name -> value (RunVariant::axes)
  RunResult result;
};

struct PipelineRecord {
  std::string pipeline;  // the pipeline's name
  double seconds = 0;    // wall time of the whole invocation
  std::vector<RunRecord> runs;
};

// summary.json text: {"pipeline", "seconds", "runs": [{"ablation", "ok", "nodes": {NAME: {kind,
// status, seconds, key, metrics, error?}}}]}. Non-finite numbers are written as null.
std::string SummaryJson(const PipelineRecord& record);

// Writes summary.json and the attachments under `out_dir` (created if missing).
Status WriteRunRecord(const std::string& out_dir, const PipelineRecord& record, Env* env);

}  // namespace seqflow

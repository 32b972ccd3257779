// The run record (DESIGN §8): DIR/summary.json with every run's per-node status, seconds, key
// and metrics, plus each node's attachments as DIR/<node>.<suffix> (DIR/run-<i>/… when an
// invocation has several ablation runs).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/env.h"
#include "engine/exec/executor.h"
#include "engine/graph/graph_svg.h"

namespace seqflow {

struct RunRecord {
  std::map<std::string, std::string> ablation;  // "NODE.FIELD" -> value; empty for the base run
  std::map<std::string, std::string> axes;      // axis name -> value (RunVariant::axes)
  RunResult result;
  GraphShape graph;  // the run's DAG, so reports can draw it
};

struct PipelineRecord {
  std::string pipeline;  // the pipeline's name
  double seconds = 0;    // wall time of the whole invocation
  std::vector<RunRecord> runs;
  // The axis whose values are repetitions (seeds) of one setting — "repeat" when the pipeline
  // has a repeat: section — or "" when the runs are not repeated. Written to summary.json as
  // "repeat_axis" only when set.
  std::string repeat_axis;
};

// summary.json text: {"pipeline", "seconds", "runs": [{"ablation", "ok", "nodes": {NAME: {kind,
// status, seconds, key, metrics, error?}}, "graph": {"nodes": [{name, kind}] in topological
// order, "edges": [{from, to, port}] by node name}}]}. Non-finite numbers are written as null.
std::string SummaryJson(const PipelineRecord& record);

// The "graph" of every run of a summary.json, in run order; an empty shape for a run recorded
// without one (records written before graphs were kept). kInvalid for invalid JSON, a missing
// "runs" array, or an edge naming an unknown node or pointing backwards.
Result<std::vector<GraphShape>> RunGraphs(std::string_view summary_json);

// Where run `run` of `num_runs` keeps the attachment `suffix` of `node`, relative to the record's
// folder: "<node>.<suffix>", or "run-<run>/<node>.<suffix>" when there are several runs.
std::string AttachmentPath(size_t run, size_t num_runs, const std::string& node, const std::string& suffix);

// Writes summary.json and the attachments under `out_dir` (created if missing).
Status WriteRunRecord(const std::string& out_dir, const PipelineRecord& record, Env* env);

}  // namespace seqflow

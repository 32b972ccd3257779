// Writing the run record of an invocation (format in run_record.h): the executor's results
// become RunRecords, and `seqflow run --out DIR` writes DIR/summary.json plus, per run, the
// resolved pipeline as DIR/resolved.yaml and each node's attachments as DIR/<node>.<suffix>
// (DIR/run-<i>/… when the invocation has several runs).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/base/env.h"
#include "engine/exec/executor.h"
#include "engine/graph/dag.h"
#include "engine/record/run_record.h"

namespace seqflow {

// Appends the run of `dag` that produced `result` to `record`, and the declarations of the
// dag's kinds to record.kinds. REQUIRES: result comes from Execute(dag, ...).
void AppendRun(PipelineRecord& record, const Dag& dag, const RunResult& result,
               const std::map<std::string, std::string>& ablation, const std::map<std::string, std::string>& axes);

// Writes summary.json, the resolved pipelines and the attachments under `out_dir` (created if
// missing); results[i] is the run recorded as record.runs[i] (the record keeps attachment names,
// the results their contents) and resolved[i] its ResolvedPipelineYaml.
// REQUIRES: results.size() == resolved.size() == record.runs.size().
Status WriteRunRecord(const std::string& out_dir, const PipelineRecord& record, const std::vector<RunResult>& results,
                      const std::vector<std::string>& resolved, Env* env);

}  // namespace seqflow

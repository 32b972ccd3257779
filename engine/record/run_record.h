// The run record (DESIGN §8) as one type: what `seqflow run --out DIR` writes to
// DIR/summary.json, and what `seqflow report`, its HTML page and its path-plot markers read back.
// One writer (RunRecordJson) and one reader (ParseRunRecord), so the two cannot drift:
// ParseRunRecord(RunRecordJson(r)) == r whenever r's numbers are finite and every node that
// attached files lists them (NodeRecord::files; for one that does not, as in the record `seqflow
// run` builds, the writer lists AttachmentPath's paths, and those are what is read back).
//
// summary.json:
//   {"pipeline": NAME, "seconds": S, "repeat_axis": AXIS (only when set), "build": TEXT (the
//    binary, its numerics and kernel variant: cli/build_info.h),
//    "invocation": {"command": [ARG, ...], "set": [OVERRIDE, ...], "started": UTC, "finished": UTC, "host": NAME,
//                   "pipeline_file": PATH, "git_commit": SHA, "git_tree": "clean" | "dirty"}
//                  (times as 2026-12-07T06:30:00Z; the git fields only when the pipeline file
//                  lies in a git work tree),
//    "kinds": {KIND: {"role": ROLE, "headline": [METRIC, ...], "chosen_lambda": METRIC,
//                     "per_system": {"p_prefix": PREFIX} (only for per-system evaluators),
//                     "attachments": [{"suffix", "type", "x", "x_label", "y", "y_fallback",
//                                      "mark_max", "x_is_lambda"}]}},
//    "runs": [{"ablation": {NODE.FIELD: V}, "axes": {AXIS: V}, "ok": B, "seconds": S,
//              "nodes": {NAME: {"kind", "status", "seconds", "key", "params": {PARAM: TEXT},
//                               "metrics": {METRIC: X},
//                               "attachments": [SUFFIX, ...], "files": [PATH, ...],
//                               "error" (failed nodes only)}},
//              "graph": {"nodes": [{"name", "kind"}] in topological order,
//                        "edges": [{"from", "to", "port"}] by node name}}]}
// A node's "params" are every parameter it ran with, defaults included, as canonical text (the
// text its cache key hashes; paths absolute). Each run's folder also holds resolved.yaml: the
// pipeline as that run ran it (summary.h). A node's "files" say where its "attachments" are, one
// path per suffix in the same order, relative to the record's folder ("compare.compare.md",
// "run-2/score.sentences.csv"), so a reader need not know the naming rule (AttachmentPath).
// "kinds" holds the declarations (engine/api/record_spec.h) of every kind the runs use: the
// report acts on those, never on a kind's, metric's or column's name. Non-finite numbers are
// written as null and read back as NaN.
//
// Reading: "pipeline", "runs", each run's "nodes" and each node's "kind" and "status" are
// required; any other field may be absent (records written before it existed) and then takes
// its default. A field of the wrong type, a missing required field or invalid JSON is kInvalid,
// located: the file and, for bad JSON, line:col and byte offset, else the field's JSON pointer
// ("/runs/2/nodes/score/metrics/f1: expected a number, got string").
// Thread safety: plain values and pure functions.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engine/api/record_spec.h"
#include "engine/base/env.h"
#include "engine/exec/executor.h"
#include "engine/graph/graph_svg.h"

namespace seqflow {

struct NodeRecord {
  std::string kind;
  NodeStatus status = NodeStatus::kComputed;
  double seconds = 0;  // this run's wall time for the node (load time when cached)
  std::string key;
  std::map<std::string, double> metrics;
  std::vector<std::string> attachments;  // suffixes of the files it attached, in attach order
  std::string error;                     // failed nodes: what went wrong
  std::map<std::string, std::string> params;  // name -> canonical text (FormatParamValue)
  // Where each attachment is, relative to the record's folder, parallel to `attachments`; empty
  // when not listed (a record being made, or read from a summary.json written before "files"):
  // AttachmentFile then gives AttachmentPath's.
  std::vector<std::string> files;

  bool operator==(const NodeRecord&) const = default;
};

struct RunRecord {
  std::map<std::string, std::string> ablation;  // "NODE.FIELD" -> value; empty for the base run
  std::map<std::string, std::string> axes;      // axis name -> value (RunVariant::axes)
  bool ok = true;
  double seconds = 0;
  std::map<std::string, NodeRecord> nodes;  // by node name
  GraphShape graph;                         // the run's DAG, so reports can draw it

  // Field by field (GraphShape's nodes and edges by their names, kinds, ends and ports).
  bool operator==(const RunRecord& other) const;
};

// What was invoked, when and where.
struct RunInvocation {
  std::vector<std::string> command;  // argv
  std::vector<std::string> sets;     // the --set overrides, as given (NAME=V, NODE.FIELD=V)
  std::string started, finished;     // UTC, ISO 8601 to the second
  std::string host;
  std::string pipeline_file;  // absolute
  std::string git_commit;     // of the work tree holding the pipeline file; "" outside one
  std::string git_tree;       // "clean" or "dirty" (tracked files changed); "" outside one

  bool operator==(const RunInvocation&) const = default;
};

struct PipelineRecord {
  std::string pipeline;  // the pipeline's name
  RunInvocation invocation;
  double seconds = 0;    // wall time of the whole invocation
  std::string build;     // the binary and its kernel variant (cli/build_info.h); "" if unknown
  // The axis whose values are repetitions (seeds) of one setting — "repeat" when the pipeline
  // has a repeat: section — or "" when the runs are not repeated.
  std::string repeat_axis;
  std::map<std::string, RecordSpec> kinds;  // declarations of the kinds the runs use
  std::vector<RunRecord> runs;

  // The declaration of `kind`; an empty one (role kOther) when the record has none.
  const RecordSpec& Declared(const std::string& kind) const;
  bool operator==(const PipelineRecord&) const = default;
};

// summary.json text (format above), indented by two spaces.
std::string RunRecordJson(const PipelineRecord& record);
// Parses summary.json text; `file` names it in errors.
Result<PipelineRecord> ParseRunRecord(std::string_view json, const std::string& file);
// Reads and parses DIR/summary.json through `env`.
Result<PipelineRecord> ReadRunRecord(const std::string& dir, Env* env);

// Where run `run` of `num_runs` keeps the attachment `suffix` of `node`, relative to the record's
// folder: "<node>.<suffix>", or "run-<run + 1>/<node>.<suffix>" when there are several runs (folders
// count from 1, as the progress lines "[run 1/4]" do).
std::string AttachmentPath(size_t run, size_t num_runs, const std::string& node, const std::string& suffix);
// Where the record says run `run`'s node `node` keeps its attachment `suffix`: its listed file
// (NodeRecord::files), else AttachmentPath. REQUIRES: run < record.runs.size().
std::string AttachmentFile(const PipelineRecord& record, size_t run, const std::string& node,
                           const std::string& suffix);

// A file of the record that a node attached and its kind declares.
struct DeclaredAttachment {
  size_t run = 0;
  std::string node;
  const AttachmentSpec* spec = nullptr;  // points into the record's `kinds`
  std::string path;                      // AttachmentFile(record, run, node, spec->suffix)
};
// Every declared attachment of `type` in the record, by run, then node name, then declaration.
std::vector<DeclaredAttachment> AttachmentsOf(const PipelineRecord& record, AttachmentType type);

// "decoder=decode.sms, model.criterion=min_eig", keys in order; "base" when empty.
std::string SettingLabel(const std::map<std::string, std::string>& assignment);
// The run's setting by its axes ("decoder=decode.sms"), or by its NODE.FIELD values when it has
// no axis names (records written before they were kept).
std::string RunLabel(const RunRecord& run);

}  // namespace seqflow

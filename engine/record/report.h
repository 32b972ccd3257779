// The comparison table of a run record (DESIGN §7 `seqflow report`): summary.json text in, one
// row per ablation setting and one column per evaluator metric out, rendered as aligned text,
// Markdown or CSV. Pure: no files, no printing; the CLI reads and writes.
//
// Rows: runs whose ablation assignments differ only in repetition keys (a key named `repeat`
// or `repeat.*`, or ending in `.seed`) are one row, with the mean, the sample standard
// deviation (n - 1 in the denominator) and n of each metric. summary.json keeps the ablation's
// NODE.FIELD keys, not its axis names, so an axis named `repeat` is recognised through its
// `.seed` fields, as pipelines/citations_criteria.yaml writes it.
// Columns: "<node>.<metric>" for each node whose kind starts with "eval." and each metric of
// kMetricOrder it reports, nodes in name order. All these metrics are higher-is-better; the
// best mean of a column is marked when at least two rows have a value.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"

namespace seqflow {

struct ReportCell {
  double mean = 0;
  double stddev = 0;  // sample standard deviation; 0 when n == 1
  size_t n = 0;       // runs of the row that report this metric
  bool best = false;
};

struct ReportRow {
  std::string label;                             // "predicted.kind=decode.sms, vocab.unknown=shape", or "base"
  size_t runs = 0;                               // runs grouped into this row
  std::vector<std::optional<ReportCell>> cells;  // one per column; nullopt = not reported
};

struct ReportTable {
  std::string pipeline;
  size_t runs = 0;                   // runs in the record
  std::vector<std::string> columns;  // "score.f1", ...
  std::vector<ReportRow> rows;       // in the order of each row's first run
};

// The metrics that become columns, in column order within a node.
inline constexpr const char* kMetricOrder[] = {"f1", "precision", "recall", "accuracy"};

// True for ablation keys that only repeat an experiment (see above).
bool IsRepetitionKey(std::string_view key);

// Parses summary.json text. Invalid JSON or a missing "runs" array is kInvalid.
Result<ReportTable> BuildReport(std::string_view summary_json);

// Aligned plain text no wider than `width` columns where possible: long labels wrap at ", ",
// and columns that do not fit continue in further blocks that repeat the label. Best = "*".
std::string RenderText(const ReportTable& table, size_t width = 100);
// A GitHub-flavoured Markdown table; the best value is **bold**; "|" in labels escaped.
std::string RenderMarkdown(const ReportTable& table);
// RFC 4180 CSV for other tools: run,n, then "<col>,<col>.std,<col>.n" per column, full
// precision (%.10g), empty fields where a metric is missing. No best marker (derivable).
std::string RenderCsv(const ReportTable& table);

}  // namespace seqflow

// The comparison table of a run record (DESIGN §7 `seqflow report`): a PipelineRecord in, one
// row per ablation setting and one column per evaluator metric out (BuildReport), or with systems
// as rows (BuildSystemsReport, `--rows systems`), rendered as aligned text, Markdown or CSV.
// Pure: no files, no printing; the CLI reads and writes.
//
// Rows: runs whose ablation assignments differ only in repetition keys (a key named `repeat`
// or `repeat.*`, or ending in `.seed`) are one row, with the mean, the sample standard
// deviation (n - 1 in the denominator) and n of each metric. summary.json keeps the ablation's
// NODE.FIELD keys, not its axis names, so an axis named `repeat` is recognised through its
// `.seed` fields, as pipelines/citations_criteria.yaml writes it.
// Columns: "<node>.<metric>" for each node whose kind the record declares an evaluator
// (NodeRole::kEvaluator) and each of its kind's headline metrics that some run reports (a finite
// number), nodes in name order, metrics in headline order. Node names hold no '.', so the first
// '.' splits a column. Headline metrics are higher-is-better; the best mean of a column is
// marked when at least two rows have a value. A per-system evaluator (RecordSpec::per_system:
// eval.compare) has a column "<node>.<metric>.<system>" per headline metric and system, its
// reference system first, then by name; its p-values against its reference are not shown in
// this table (they are in the systems table), and its cells get none against the best row.
// Significance: given the evaluators' per-sentence statistics (their declared
// AttachmentType::kSentenceCounts files, see significance.h), every other row of a column is
// compared with the column's best row by a paired test (approximate randomization by default)
// on that column's metric. Runs pair up by
// repetition: the run of seed s of one row with the run of seed s of the other, and the test is
// stratified by seed — its statistic is the mean over seeds, the number the table shows, and
// sentences swap only with their counterpart of the same seed. A row gets no p-value when the
// two rows do not have the same seeds, when a run's attachment is missing or unreadable, when
// paired runs were scored on different test sets (their gold fingerprints differ), or when the
// evaluator's statistics do not cover the metric (the counts recompute the metrics that
// significance.h's Statistic names: f1, precision, recall, accuracy).
//
// Systems as rows (BuildSystemsReport): one row per setting and evaluator node — for a
// per-system evaluator one per system, its reference first, then by name — settings in the
// order of their first run, nodes by name; one column per headline metric name ("f1",
// "accuracy") that some row reports: the longest headline's in its order, then those other
// headlines add (by length, then node name). Cells,
// repetitions and the best marker as above, the best over all rows of the column.
// p-values: a row of an evaluator with per-sentence counts is tested as above against the
// column's reference row: the best among the rows of evaluators that are not per-system (the
// starred row unless a per-system row is better). Its runs pair with the reference row's by
// repetition id; the two rows may be of different nodes, and must then have been scored on the
// same test sentences (gold fingerprints). A per-system row shows its evaluator's own p-value
// against the reference system (the "<system_p_prefix><metric>.<system>" metric; ReportRow::
// reference names that system) when the row holds one run. With repetitions such a row has no
// p-value: the evaluator keeps no per-sentence counts per system, so its seeds cannot be tested
// together.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"
#include "engine/record/run_record.h"
#include "stats/significance.h"

namespace seqflow {

struct ReportCell {
  double mean = 0;
  double stddev = 0;  // sample standard deviation; 0 when n == 1
  size_t n = 0;       // runs of the row that report this metric
  bool best = false;
  std::optional<double> p;  // two-sided p-value against the column's best row (see above)
};

struct ReportRow {
  std::string label;                             // "predicted.kind=decode.sms, vocab.unknown=shape", or "base"
  size_t runs = 0;                               // runs grouped into this row
  std::vector<std::optional<ReportCell>> cells;  // one per column; nullopt = not reported
  // Systems as rows only:
  std::string node;       // the evaluator node
  std::string system;     // the system of a per-system evaluator; "" for other evaluators
  std::string reference;  // a per-system row's reference system, which its p-values are against
};

// What a table's rows are.
enum class ReportRows {
  kSettings,  // one per ablation setting, columns "<node>.<metric>" (BuildReport)
  kSystems,   // one per setting and evaluator (and system), columns "<metric>" (BuildSystemsReport)
};

struct ReportTable {
  ReportRows rows_by = ReportRows::kSettings;
  std::string pipeline;
  size_t runs = 0;                   // runs in the record
  std::vector<std::string> columns;  // "score.f1", ... (systems as rows: "f1", ...)
  std::vector<ReportRow> rows;       // in the order of each row's first run
  SignificanceOptions test;          // the paired test behind the p-values
  bool has_p = false;                // some cell has a p-value
};

// A significance level: p-values below it are marked.
inline constexpr double kSignificanceLevel = 0.05;

// The per-sentence count files of a record, by their path relative to the record's folder
// (DeclaredAttachment::path: "score.sentences.csv", "run-3/score.sentences.csv").
using SentenceFiles = std::map<std::string, std::string>;

// True for ablation keys that only repeat an experiment (see above).
bool IsRepetitionKey(std::string_view key);

// "<node>.<metric>" split at its first '.'.
std::pair<std::string, std::string> SplitColumn(const std::string& column);

// p-values come from `sentences` (none when empty). Repetitions are the values of the record's
// repeat_axis when it names one, else the repetition keys above.
ReportTable BuildReport(const PipelineRecord& record, const SentenceFiles& sentences = {},
                        const SignificanceOptions& test = {});
// The same record with systems as rows (see above).
ReportTable BuildSystemsReport(const PipelineRecord& record, const SentenceFiles& sentences = {},
                               const SignificanceOptions& test = {});

// printf's "%.*f" of `v`.
std::string FixedText(double v, int digits);
// "0.8279", "0.8279 ± 0.0123", with " (n=K)" when only K of the row's runs report it.
std::string CellText(const ReportCell& cell, size_t row_runs);
// " p=0.012", " p<0.001", marked "†" below kSignificanceLevel; "" when the cell has no p-value.
std::string PValueText(const ReportCell& cell);

// The renderings name a row by its setting ("run"), and with systems as rows also by "node" and
// "system" (the reference system marked " (ref)" in text and Markdown).
// Aligned plain text no wider than `width` columns where possible: long labels wrap at ", ",
// and columns that do not fit continue in further blocks that repeat the row's names. Best =
// "*"; a p-value follows its mean ("p=0.012", "p<0.001"), marked "†" below kSignificanceLevel.
std::string RenderText(const ReportTable& table, size_t width = 100);
// A GitHub-flavoured Markdown table; the best value is **bold**, p-values as in text; "|" in
// labels escaped.
std::string RenderMarkdown(const ReportTable& table);
// One RFC 4180 CSV field: quoted when it holds a comma, a quote, CR or LF, inner quotes doubled.
std::string CsvField(const std::string& text);
// RFC 4180 CSV for other tools: run (systems as rows: run,node,system,reference), n, then
// "<col>,<col>.std,<col>.n,<col>.p" per column, full precision (%.10g), empty fields where a
// value is missing. No best marker (derivable).
std::string RenderCsv(const ReportTable& table);

}  // namespace seqflow

// The comparison table of a run record (DESIGN §7 `seqflow report`): a PipelineRecord in, one
// row per ablation setting and one column per evaluator metric out, rendered as aligned text,
// Markdown or CSV. Pure: no files, no printing; the CLI reads and writes.
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
// marked when at least two rows have a value.
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
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/api/significance.h"
#include "engine/base/status.h"
#include "engine/record/run_record.h"

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
};

struct ReportTable {
  std::string pipeline;
  size_t runs = 0;                   // runs in the record
  std::vector<std::string> columns;  // "score.f1", ...
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

// printf's "%.*f" of `v`.
std::string FixedText(double v, int digits);
// "0.8279", "0.8279 ± 0.0123", with " (n=K)" when only K of the row's runs report it.
std::string CellText(const ReportCell& cell, size_t row_runs);
// " p=0.012", " p<0.001", marked "†" below kSignificanceLevel; "" when the cell has no p-value.
std::string PValueText(const ReportCell& cell);

// Aligned plain text no wider than `width` columns where possible: long labels wrap at ", ",
// and columns that do not fit continue in further blocks that repeat the label. Best = "*";
// a p-value follows its mean ("p=0.012", "p<0.001"), marked "†" below kSignificanceLevel.
std::string RenderText(const ReportTable& table, size_t width = 100);
// A GitHub-flavoured Markdown table; the best value is **bold**, p-values as in text; "|" in
// labels escaped.
std::string RenderMarkdown(const ReportTable& table);
// RFC 4180 CSV for other tools: run,n, then "<col>,<col>.std,<col>.n,<col>.p" per column, full
// precision (%.10g), empty fields where a value is missing. No best marker (derivable).
std::string RenderCsv(const ReportTable& table);

}  // namespace seqflow

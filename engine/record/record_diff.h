// `seqflow diff A B`: what differs between two run records, and what it did to the metrics.
//
// Runs pair up by their ablation setting (the run's NODE.FIELD values; a record without ablations
// has one run, the base). For every pair:
//   - parameters: each node's recorded parameters (NodeRecord::params, canonical text) and kind,
//     compared node by node; a node in one run only is a change of its kind from or to nothing.
//     A change that every pair shares is listed once.
//   - metrics: every headline metric of every evaluator in either run (the kinds' declarations;
//     the text, Markdown and HTML tables show those that differ and count the rest),
//     A's value, B's and B − A; where both evaluators attached their per-sentence counts of the
//     same test sentences (equal gold fingerprints), the two-sided p-value of the paired test
//     (approximate randomization by default, significance.h) that A and B differ on that metric.
// Runs with no partner are named, not compared. Pure: records and their sentence files in, text
// out; the CLI reads and prints.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/record/report.h"
#include "engine/record/run_record.h"
#include "stats/significance.h"

namespace seqflow {

// A record and the per-sentence count files of its evaluators (report.h's SentenceFiles).
struct DiffSide {
  std::string name;  // how the user named it: an id or a folder
  const PipelineRecord* record = nullptr;
  const SentenceFiles* sentences = nullptr;
};

struct ParamChange {
  std::string node, param;  // param "kind" for the node's kind
  std::string a, b;         // canonical text; "" where the run has no such node or parameter
  bool operator==(const ParamChange&) const = default;
};

struct MetricChange {
  std::string setting;  // SettingLabel of A's run's axes, or of its ablation without axes ("base")
  std::string node, metric;
  std::optional<double> a, b;
  std::optional<double> p;  // the paired test's p-value, when the sentences pair up
};

struct RecordDiff {
  std::string a, b;  // DiffSide::name
  std::string a_pipeline, b_pipeline;
  std::vector<std::string> a_sets, b_sets;  // the --set overrides of each invocation
  std::vector<ParamChange> params;
  std::vector<MetricChange> metrics;           // by setting (A's run order), node, then headline order
  std::vector<std::string> only_a, only_b;     // settings of runs without a partner
  SignificanceOptions test;
};

RecordDiff DiffRecords(const DiffSide& a, const DiffSide& b, const SignificanceOptions& test = {});

// Plain text for a terminal, a Markdown page, JSON for other tools, and a self-contained HTML page
// (inline CSS, every text escaped).
std::string DiffText(const RecordDiff& diff);
std::string DiffMarkdown(const RecordDiff& diff);
std::string DiffJson(const RecordDiff& diff);
std::string DiffHtml(const RecordDiff& diff);

}  // namespace seqflow

// The rows of the comparison tables (internal to engine/record; the rules are in report.h):
// runs grouped into settings, cells summarised over a setting's runs, and the best of a column.
// Thread safety: pure functions.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/record/report.h"

namespace seqflow::report {

// The runs of one setting by repetition id (the seed, or the repetition keys' values); nullopt
// when two runs of the setting share an id, so that the setting cannot be paired.
using RowRepeats = std::optional<std::map<std::string, size_t>>;

// One ablation setting: the runs of the record that differ only in their repetition.
struct Setting {
  std::string label;         // SettingLabel of the run's axes (or ablation) without repetition keys
  std::vector<size_t> runs;  // indices into record.runs, in record order
  RowRepeats repeats;
};

// The settings of the record, in the order of each one's first run.
std::vector<Setting> SettingsOf(const PipelineRecord& record);

// The node's value of `metric` when its kind is a declared evaluator and the value is finite.
std::optional<double> EvaluatorMetric(const PipelineRecord& record, const NodeRecord& node, const std::string& metric);

// The systems a per-system evaluator (RecordSpec::per_system) reports in `node`'s metrics.
struct Systems {
  std::vector<std::string> names;  // the reference first, then by name
  std::string reference;           // the one system without p-values; "" when not exactly one
};
// Empty for a kind that is not per-system.
Systems SystemsOf(const RecordSpec& spec, const NodeRecord& node);

// Mean, sample standard deviation and n of `values`; nullopt when there are none.
std::optional<ReportCell> Summarise(const std::vector<double>& values);

// Sets ReportCell::best on every cell holding its column's highest mean, in columns where at
// least two rows have a value.
void MarkBest(ReportTable& table);

}  // namespace seqflow::report

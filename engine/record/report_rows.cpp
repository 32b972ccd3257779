#include "engine/record/report_rows.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace seqflow::report {
namespace {

struct RunGroup {
  std::string label;      // runs with equal labels share a setting
  std::string repeat_id;  // which repetition of its setting the run is
};

// The run's axis values (or, in records without axes, its NODE.FIELD assignment) without the
// repetition keys — the record's `repeat_axis` when it names one, else IsRepetitionKey — whose
// values identify the repetition.
RunGroup GroupOf(const RunRecord& run, const std::string& repeat_axis) {
  std::map<std::string, std::string> kept, repeat;
  for (const auto& [k, v] : run.axes.empty() ? run.ablation : run.axes) {
    bool repetition = repeat_axis.empty() ? IsRepetitionKey(k) : k == repeat_axis;
    (repetition ? repeat : kept)[k] = v;
  }
  return {SettingLabel(kept), SettingLabel(repeat)};
}

}  // namespace

std::vector<Setting> SettingsOf(const PipelineRecord& record) {
  std::vector<Setting> settings;
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < record.runs.size(); ++i) {
    RunGroup group = GroupOf(record.runs[i], record.repeat_axis);
    auto [it, inserted] = index.emplace(group.label, settings.size());
    if (inserted) settings.push_back({group.label, {}, RowRepeats(std::in_place)});
    Setting& setting = settings[it->second];
    setting.runs.push_back(i);
    if (setting.repeats && !setting.repeats->emplace(group.repeat_id, i).second) setting.repeats.reset();
  }
  return settings;
}

std::optional<double> EvaluatorMetric(const PipelineRecord& record, const NodeRecord& node, const std::string& metric) {
  if (record.Declared(node.kind).role != NodeRole::kEvaluator) return std::nullopt;
  auto it = node.metrics.find(metric);
  if (it == node.metrics.end() || !std::isfinite(it->second)) return std::nullopt;
  return it->second;
}

Systems SystemsOf(const RecordSpec& spec, const NodeRecord& node) {
  if (!spec.per_system) return {};
  std::set<std::string> names, tested;  // every system; those with a p-value
  for (const auto& [name, value] : node.metrics)
    for (const std::string& metric : spec.headline) {
      if (name.starts_with(metric + ".")) names.insert(name.substr(metric.size() + 1));
      const std::string p = spec.system_p_prefix + metric + ".";
      if (!spec.system_p_prefix.empty() && name.starts_with(p)) tested.insert(name.substr(p.size()));
    }
  std::vector<std::string> untested;
  for (const std::string& name : names)
    if (!tested.count(name)) untested.push_back(name);
  Systems systems;
  if (!spec.system_p_prefix.empty() && untested.size() == 1) systems.reference = untested[0];
  if (!systems.reference.empty()) systems.names.push_back(systems.reference);
  for (const std::string& name : names)
    if (name != systems.reference) systems.names.push_back(name);
  return systems;
}

std::optional<ReportCell> Summarise(const std::vector<double>& values) {
  if (values.empty()) return std::nullopt;
  ReportCell cell;
  cell.n = values.size();
  for (double v : values) cell.mean += v;
  cell.mean /= static_cast<double>(cell.n);
  if (cell.n < 2) return cell;
  double ss = 0;
  for (double v : values) ss += (v - cell.mean) * (v - cell.mean);
  cell.stddev = std::sqrt(ss / static_cast<double>(cell.n - 1));
  return cell;
}

void MarkBest(ReportTable& table) {
  for (size_t c = 0; c < table.columns.size(); ++c) {
    std::optional<double> best;
    size_t with_value = 0;
    for (const ReportRow& row : table.rows)
      if (row.cells[c]) ++with_value, best = std::max(best.value_or(row.cells[c]->mean), row.cells[c]->mean);
    if (with_value < 2) continue;
    for (ReportRow& row : table.rows)
      if (row.cells[c] && row.cells[c]->mean == *best) row.cells[c]->best = true;
  }
}

}  // namespace seqflow::report

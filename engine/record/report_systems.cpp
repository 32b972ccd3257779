// BuildSystemsReport: the comparison table with systems as rows (rules in report.h).
#include <algorithm>
#include <map>
#include <optional>

#include "engine/record/report.h"
#include "engine/record/report_rows.h"
#include "engine/record/report_significance.h"

namespace seqflow {
namespace {

using report::EvaluatorMetric;

// The headline metric names of the record's evaluators: the longest headline's in its order,
// then those the others add (headlines by length, then node name), so that a shorter headline
// ("f1", "accuracy") does not reorder a longer one ("f1", "precision", "recall", "accuracy").
std::vector<std::string> MetricColumns(const PipelineRecord& record) {
  std::map<std::string, const std::vector<std::string>*> headlines;  // evaluator node -> its headline
  for (const RunRecord& run : record.runs)
    for (const auto& [name, node] : run.nodes)
      if (const RecordSpec& spec = record.Declared(node.kind); spec.role == NodeRole::kEvaluator)
        headlines.try_emplace(name, &spec.headline);
  std::vector<const std::vector<std::string>*> order;
  for (const auto& [name, headline] : headlines) order.push_back(headline);
  std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->size() > b->size(); });
  std::vector<std::string> columns;
  for (const std::vector<std::string>* headline : order)
    for (const std::string& metric : *headline)
      if (std::find(columns.begin(), columns.end(), metric) == columns.end()) columns.push_back(metric);
  return columns;
}

// A row's place: an evaluator node of the setting, and one of its systems ("" for a node that
// is not per-system).
struct RowKey {
  std::string node;
  std::string system;
  std::string reference;
};

// The rows of one setting: its evaluator nodes by name, a per-system one's systems in order
// (from its first run that reports any).
std::vector<RowKey> RowKeys(const PipelineRecord& record, const report::Setting& setting) {
  std::map<std::string, std::optional<report::Systems>> nodes;  // nullopt: not per-system
  for (size_t i : setting.runs)
    for (const auto& [name, node] : record.runs[i].nodes) {
      const RecordSpec& spec = record.Declared(node.kind);
      if (spec.role != NodeRole::kEvaluator) continue;
      auto [it, inserted] = nodes.try_emplace(name);
      if (spec.per_system && (!it->second || it->second->names.empty())) it->second = report::SystemsOf(spec, node);
    }
  std::vector<RowKey> keys;
  for (const auto& [name, systems] : nodes) {
    if (!systems)
      keys.push_back({name, "", ""});
    else
      for (const std::string& system : systems->names) keys.push_back({name, system, systems->reference});
  }
  return keys;
}

// The key of `metric` in the node's metrics: "<metric>.<system>" for a system's row.
std::string MetricKey(const std::string& metric, const RowKey& key) {
  return key.system.empty() ? metric : metric + "." + key.system;
}

// The cell of `metric` over the setting's runs; only metrics the node's kind headlines.
std::optional<ReportCell> Cell(const PipelineRecord& record, const report::Setting& setting, const RowKey& key,
                               const std::string& metric) {
  std::vector<double> values;
  for (size_t i : setting.runs) {
    auto node = record.runs[i].nodes.find(key.node);
    if (node == record.runs[i].nodes.end()) continue;
    const std::vector<std::string>& headline = record.Declared(node->second.kind).headline;
    if (std::find(headline.begin(), headline.end(), metric) == headline.end()) continue;
    if (std::optional<double> v = EvaluatorMetric(record, node->second, MetricKey(metric, key))) values.push_back(*v);
  }
  return report::Summarise(values);
}

// A system's own p-value against its reference, from the setting's one run.
std::optional<double> SystemP(const PipelineRecord& record, const report::Setting& setting, const RowKey& key,
                              const std::string& metric) {
  if (setting.runs.size() != 1 || key.reference.empty() || key.system == key.reference) return std::nullopt;
  const NodeRecord& node = record.runs[setting.runs[0]].nodes.at(key.node);
  const std::string& prefix = record.Declared(node.kind).system_p_prefix;
  return EvaluatorMetric(record, node, prefix + MetricKey(metric, key));
}

// Removes the columns no row has a value in (a headline metric no run reports).
void DropEmptyColumns(ReportTable& table) {
  for (size_t c = table.columns.size(); c-- > 0;) {
    if (std::any_of(table.rows.begin(), table.rows.end(), [c](const ReportRow& row) { return row.cells[c]; })) continue;
    table.columns.erase(table.columns.begin() + static_cast<std::ptrdiff_t>(c));
    for (ReportRow& row : table.rows) row.cells.erase(row.cells.begin() + static_cast<std::ptrdiff_t>(c));
  }
}

}  // namespace

ReportTable BuildSystemsReport(const PipelineRecord& record, const SentenceFiles& sentences,
                               const SignificanceOptions& test) {
  ReportTable table;
  table.rows_by = ReportRows::kSystems;
  table.pipeline = record.pipeline;
  table.runs = record.runs.size();
  table.columns = MetricColumns(record);
  table.test = test;
  std::vector<report::RowRepeats> repeats;
  for (const report::Setting& setting : report::SettingsOf(record))
    for (const RowKey& key : RowKeys(record, setting)) {
      ReportRow row{setting.label, setting.runs.size(), {}, key.node, key.system, key.reference};
      for (const std::string& metric : table.columns) {
        row.cells.push_back(Cell(record, setting, key, metric));
        if (row.cells.back()) row.cells.back()->p = SystemP(record, setting, key, metric);
      }
      if (std::none_of(row.cells.begin(), row.cells.end(), [](const auto& c) { return c.has_value(); })) continue;
      table.has_p =
          table.has_p || std::any_of(row.cells.begin(), row.cells.end(), [](const auto& c) { return c && c->p; });
      table.rows.push_back(std::move(row));
      repeats.push_back(setting.repeats);
    }
  DropEmptyColumns(table);
  report::MarkBest(table);
  auto source = [&table](size_t row, size_t column) -> std::optional<report::CellSource> {
    if (!table.rows[row].system.empty()) return std::nullopt;  // per-system rows have their own p
    return report::CellSource{table.rows[row].node, table.columns[column]};
  };
  report::AddPValues(record, repeats, source, sentences, table);
  return table;
}

}  // namespace seqflow

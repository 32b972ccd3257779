#include "engine/record/tidy_table.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "engine/record/report.h"  // CsvField

namespace seqflow {
namespace {

using OrderedJson = nlohmann::ordered_json;

// The number `text` spells in full, when finite.
std::optional<double> FiniteNumber(const std::string& text) {
  double v = 0;
  const char* end = text.data() + text.size();
  auto [stop, error] = std::from_chars(text.data(), end, v);
  if (text.empty() || error != std::errc() || stop != end || !std::isfinite(v)) return std::nullopt;
  return v;
}

// The shortest text that reads back to `v`.
std::string Shortest(double v) {
  char buf[64];
  auto [end, error] = std::to_chars(buf, buf + sizeof buf, v);
  return error == std::errc() ? std::string(buf, end) : std::string();
}

// The axes of a run: RunRecord::axes, or the ablation's keys in a record without axes.
const std::map<std::string, std::string>& AxesOf(const RunRecord& run, bool record_has_axes) {
  return record_has_axes ? run.axes : run.ablation;
}

// The axis columns: every axis some run has, by name, typed over all runs, renamed off the
// fixed columns and each other.
std::vector<TidyAxis> Axes(const PipelineRecord& record, bool record_has_axes) {
  std::map<std::string, bool> numeric;  // axis -> every value so far is a finite number
  for (const RunRecord& run : record.runs)
    for (const auto& [name, value] : AxesOf(run, record_has_axes)) {
      auto [it, inserted] = numeric.try_emplace(name, true);
      it->second = it->second && FiniteNumber(value).has_value();
    }
  std::set<std::string> taken(std::begin(kTidyFixedColumns), std::end(kTidyFixedColumns));
  for (const auto& [name, is_numeric] : numeric) taken.insert(name);
  std::vector<TidyAxis> axes;
  for (const auto& [name, is_numeric] : numeric) {
    std::string column = name;
    const bool fixed =
        std::find(std::begin(kTidyFixedColumns), std::end(kTidyFixedColumns), name) != std::end(kTidyFixedColumns);
    if (fixed)
      while (taken.count(column)) column = "axis." + column;
    taken.insert(column);
    axes.push_back({name, column, is_numeric});
  }
  return axes;
}

// An axis value as written: a numeric axis's number in its shortest text, a string as it is.
std::string AxisText(const TidyAxis& axis, const std::string& value) {
  return axis.numeric ? Shortest(*FiniteNumber(value)) : value;
}

// A JSON number: an integer when `v` is one that a double holds exactly.
OrderedJson JsonNumber(double v) {
  if (!std::isfinite(v)) return nullptr;
  if (v == std::trunc(v) && std::fabs(v) <= 9007199254740992.0) return static_cast<int64_t>(v);
  return v;
}

}  // namespace

TidyTable BuildTidyTable(const PipelineRecord& record) {
  bool has_axes = false;
  for (const RunRecord& run : record.runs) has_axes = has_axes || !run.axes.empty();
  TidyTable table;
  table.axes = Axes(record, has_axes);
  for (size_t r = 0; r < record.runs.size(); ++r) {
    const std::map<std::string, std::string>& values = AxesOf(record.runs[r], has_axes);
    std::vector<std::optional<std::string>> axes;
    for (const TidyAxis& axis : table.axes) {
      auto it = values.find(axis.name);
      axes.push_back(it == values.end() ? std::nullopt : std::optional(it->second));
    }
    for (const auto& [name, node] : record.runs[r].nodes)
      for (const auto& [metric, value] : node.metrics)
        table.rows.push_back({r + 1, axes, name, node.kind, metric, value});
  }
  return table;
}

std::string TidyCsv(const TidyTable& table) {
  std::string out = "run";
  for (const TidyAxis& axis : table.axes) out += "," + CsvField(axis.column);
  out += ",node,kind,metric,value\n";
  for (const TidyRow& row : table.rows) {
    out += std::to_string(row.run);
    for (size_t a = 0; a < table.axes.size(); ++a)
      out += "," + (row.axes[a] ? CsvField(AxisText(table.axes[a], *row.axes[a])) : std::string());
    out += "," + CsvField(row.node) + "," + CsvField(row.kind) + "," + CsvField(row.metric) + "," +
           (std::isfinite(row.value) ? Shortest(row.value) : std::string()) + "\n";
  }
  return out;
}

std::string TidyJson(const TidyTable& table) {
  std::string out = "[";
  for (size_t i = 0; i < table.rows.size(); ++i) {
    const TidyRow& row = table.rows[i];
    OrderedJson j = {{"run", row.run}};
    for (size_t a = 0; a < table.axes.size(); ++a) {
      const TidyAxis& axis = table.axes[a];
      if (!row.axes[a])
        j[axis.column] = nullptr;
      else
        j[axis.column] = axis.numeric ? JsonNumber(*FiniteNumber(*row.axes[a])) : OrderedJson(*row.axes[a]);
    }
    j["node"] = row.node, j["kind"] = row.kind, j["metric"] = row.metric, j["value"] = JsonNumber(row.value);
    // Text that is not UTF-8 is replaced, not thrown about: the table is for reading.
    out += (i ? ",\n " : "\n ") + j.dump(-1, ' ', false, OrderedJson::error_handler_t::replace);
  }
  return out + (table.rows.empty() ? "]\n" : "\n]\n");
}

}  // namespace seqflow

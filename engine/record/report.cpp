#include "engine/record/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "engine/record/report_rows.h"
#include "engine/record/report_significance.h"

namespace seqflow {
namespace {

constexpr size_t kMaxLabelWidth = 40;
constexpr size_t kGap = 2;  // spaces between text columns

using report::EvaluatorMetric;

// The metrics a node's columns show: its kind's headline, per system for a per-system evaluator
// ("f1.base", "f1.sms", "accuracy.base", ...).
std::vector<std::string> ShownMetrics(const RecordSpec& spec, const NodeRecord& node) {
  if (!spec.per_system) return spec.headline;
  std::vector<std::string> metrics;
  const std::vector<std::string> systems = report::SystemsOf(spec, node).names;
  for (const std::string& metric : spec.headline)
    for (const std::string& system : systems) metrics.push_back(metric + "." + system);
  return metrics;
}

// "<node>.<metric>" for every shown metric an evaluator reports in some run; nodes in name
// order, metrics in the order their kinds' headlines list them.
std::vector<std::string> Columns(const PipelineRecord& record) {
  std::map<std::string, std::vector<std::string>> shown;  // node -> its shown metrics, merged over runs
  std::set<std::pair<std::string, std::string>> reported;
  for (const RunRecord& run : record.runs)
    for (const auto& [name, node] : run.nodes)
      for (const std::string& metric : ShownMetrics(record.Declared(node.kind), node)) {
        std::vector<std::string>& list = shown[name];
        if (std::find(list.begin(), list.end(), metric) == list.end()) list.push_back(metric);
        if (EvaluatorMetric(record, node, metric)) reported.insert({name, metric});
      }
  std::vector<std::string> columns;
  for (const auto& [node, metrics] : shown)
    for (const std::string& metric : metrics)
      if (reported.count({node, metric})) columns.push_back(node + "." + metric);
  return columns;
}

std::optional<double> MetricOf(const PipelineRecord& record, const RunRecord& run, const std::string& column) {
  auto [node, metric] = SplitColumn(column);
  auto it = run.nodes.find(node);
  return it == run.nodes.end() ? std::nullopt : EvaluatorMetric(record, it->second, metric);
}

std::string PText(const std::optional<ReportCell>& cell) { return cell ? PValueText(*cell) : ""; }

// Terminal columns of UTF-8 text: one per code point (the text holds no wide characters).
size_t DisplayWidth(std::string_view s) {
  return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

std::string Pad(const std::string& s, size_t width) {
  size_t w = DisplayWidth(s);
  return w >= width ? s : s + std::string(width - w, ' ');
}

// Splits at ", " and packs the parts into lines of at most `width` (REQUIRES: width >= 3); a
// part longer than a line is cut. Continuation lines are indented by two spaces.
std::vector<std::string> WrapLabel(const std::string& label, size_t width) {
  std::vector<std::string> lines;
  std::string line;
  for (size_t start = 0; start < label.size();) {
    size_t comma = label.find(", ", start);
    size_t end = comma == std::string::npos ? label.size() : comma + 1;
    std::string part = label.substr(start, end - start);
    start = comma == std::string::npos ? label.size() : comma + 2;
    std::string joined = line.empty() ? part : line + " " + part;
    if (!line.empty() && DisplayWidth(joined) > width) lines.push_back(line), joined = "  " + part;
    line = joined;
  }
  lines.push_back(line);
  std::vector<std::string> out;
  for (std::string& l : lines) {
    while (DisplayWidth(l) > width) out.push_back(l.substr(0, width)), l = "  " + l.substr(width);
    out.push_back(l);
  }
  return out;
}

// Cell texts of the table: [row][column], best values suffixed with "*".
std::vector<std::vector<std::string>> TextCells(const ReportTable& table) {
  std::vector<std::vector<std::string>> cells;
  for (const ReportRow& row : table.rows) {
    cells.emplace_back();
    for (const auto& cell : row.cells)
      cells.back().push_back((cell ? CellText(*cell, row.runs) : "-") + (cell && cell->best ? "*" : "") + PText(cell));
  }
  return cells;
}

// The columns that name a row after its setting ("run"): with systems as rows, "node" and
// "system".
std::vector<std::string> NameHeaders(const ReportTable& table) {
  if (table.rows_by == ReportRows::kSettings) return {};
  return {"node", "system"};
}

// The row's entries under NameHeaders, its reference system marked.
std::vector<std::string> NameTexts(const ReportTable& table, const ReportRow& row) {
  if (table.rows_by == ReportRows::kSettings) return {};
  const bool reference = !row.system.empty() && row.system == row.reference;
  return {row.node, row.system + (reference ? " (ref)" : "")};
}

// Widths of the text table's columns: the setting, the row's names, n, then the metrics.
struct TextLayout {
  size_t label = 3;  // "run"
  std::vector<size_t> names;
  size_t n = 1;
  std::vector<size_t> metrics;

  // The columns before the metrics, with their gaps.
  size_t Fixed() const {
    size_t used = label + kGap + n;
    for (size_t w : names) used += kGap + w;
    return used;
  }
};

TextLayout LayOut(const ReportTable& table, const std::vector<std::vector<std::string>>& cells) {
  TextLayout layout;
  for (const std::string& header : NameHeaders(table)) layout.names.push_back(DisplayWidth(header));
  for (const ReportRow& row : table.rows) {
    layout.label = std::max(layout.label, DisplayWidth(row.label));
    layout.n = std::max(layout.n, std::to_string(row.runs).size());
    std::vector<std::string> names = NameTexts(table, row);
    for (size_t i = 0; i < names.size(); ++i) layout.names[i] = std::max(layout.names[i], DisplayWidth(names[i]));
  }
  layout.label = std::min(layout.label, kMaxLabelWidth);
  for (size_t c = 0; c < table.columns.size(); ++c) {
    layout.metrics.push_back(DisplayWidth(table.columns[c]));
    for (const auto& row : cells) layout.metrics[c] = std::max(layout.metrics[c], DisplayWidth(row[c]));
  }
  return layout;
}

// One block of the text table: the setting, the row's names and n, then columns [first, last).
void AppendTextBlock(const ReportTable& table, const std::vector<std::vector<std::string>>& cells,
                     const TextLayout& layout, size_t first, size_t last, std::string& out) {
  const std::string gap(kGap, ' ');
  std::string header = Pad("run", layout.label), rule = std::string(layout.label, '-');
  const std::vector<std::string> name_headers = NameHeaders(table);
  for (size_t i = 0; i < name_headers.size(); ++i)
    header += gap + Pad(name_headers[i], layout.names[i]), rule += gap + std::string(layout.names[i], '-');
  header += gap + Pad("n", layout.n), rule += gap + std::string(layout.n, '-');
  for (size_t c = first; c < last; ++c) {
    header += gap + Pad(table.columns[c], layout.metrics[c]);
    rule += gap + std::string(layout.metrics[c], '-');
  }
  out += header + "\n" + rule + "\n";
  for (size_t r = 0; r < table.rows.size(); ++r) {
    std::vector<std::string> label = WrapLabel(table.rows[r].label, layout.label);
    std::string line = Pad(label[0], layout.label);
    std::vector<std::string> names = NameTexts(table, table.rows[r]);
    for (size_t i = 0; i < names.size(); ++i) line += gap + Pad(names[i], layout.names[i]);
    line += gap + Pad(std::to_string(table.rows[r].runs), layout.n);
    for (size_t c = first; c < last; ++c) line += gap + Pad(cells[r][c], layout.metrics[c]);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
    for (size_t i = 1; i < label.size(); ++i) out += label[i] + "\n";
  }
}

// The lines that say what the p-values are tested against: the best row, and for per-system
// rows their evaluator's reference system.
std::string PValueLegend(const ReportTable& table) {
  bool against_best = false, against_reference = false;
  for (const ReportRow& row : table.rows)
    for (const auto& cell : row.cells)
      if (cell && cell->p) (row.reference.empty() ? against_best : against_reference) = true;
  const std::string level = "; † p < " + FixedText(kSignificanceLevel, 2) + "\n";
  std::string out;
  if (against_best)
    out += "p: paired " +
           std::string(table.test.test == PairedTest::kBootstrap ? "bootstrap" : "approximate randomization") +
           (table.rows_by == ReportRows::kSettings ? " vs the best row" : " vs the best single-system row") +
           " over sentences, R = " + std::to_string(table.test.samples) + level;
  if (against_reference) out += "p of a system: its evaluator's own test against its reference system (ref)" + level;
  return out;
}

std::string Precise(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

}  // namespace

std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

bool IsRepetitionKey(std::string_view key) {
  return key == "repeat" || key.rfind("repeat.", 0) == 0 || key.ends_with(".seed");
}

std::string FixedText(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string CellText(const ReportCell& cell, size_t row_runs) {
  std::string s = FixedText(cell.mean, 4);
  if (cell.n > 1) s += " ± " + FixedText(cell.stddev, 4);
  if (cell.n != row_runs) s += " (n=" + std::to_string(cell.n) + ")";
  return s;
}

std::string PValueText(const ReportCell& cell) {
  if (!cell.p) return "";
  std::string s = *cell.p < 0.001 ? " p<0.001" : " p=" + FixedText(*cell.p, 3);
  return *cell.p < kSignificanceLevel ? s + "†" : s;
}

std::pair<std::string, std::string> SplitColumn(const std::string& column) {
  const size_t dot = column.find('.');
  return {column.substr(0, dot), dot == std::string::npos ? "" : column.substr(dot + 1)};
}

ReportTable BuildReport(const PipelineRecord& record, const SentenceFiles& sentences, const SignificanceOptions& test) {
  ReportTable table;
  table.pipeline = record.pipeline;
  table.runs = record.runs.size();
  table.columns = Columns(record);
  table.test = test;
  std::vector<report::RowRepeats> repeats;
  for (const report::Setting& setting : report::SettingsOf(record)) {
    ReportRow row{setting.label, setting.runs.size(), {}, "", "", ""};
    for (const std::string& column : table.columns) {
      std::vector<double> values;
      for (size_t i : setting.runs)
        if (std::optional<double> v = MetricOf(record, record.runs[i], column)) values.push_back(*v);
      row.cells.push_back(report::Summarise(values));
    }
    table.rows.push_back(std::move(row));
    repeats.push_back(setting.repeats);
  }
  report::MarkBest(table);
  auto source = [&table](size_t, size_t column) {
    auto [node, metric] = SplitColumn(table.columns[column]);
    return std::optional<report::CellSource>({node, metric});
  };
  report::AddPValues(record, repeats, source, sentences, table);
  return table;
}

std::string RenderText(const ReportTable& table, size_t width) {
  std::vector<std::vector<std::string>> cells = TextCells(table);
  const TextLayout layout = LayOut(table, cells);
  std::string out = table.pipeline + ": " + std::to_string(table.runs) + " runs, " + std::to_string(table.rows.size()) +
                    " rows (mean ± sd over repetitions; * = best)\n" + PValueLegend(table) + "\n";
  if (table.columns.empty()) out += "(no evaluator metrics)\n\n";
  size_t first = 0;
  do {
    size_t used = layout.Fixed(), last = first;
    while (last < table.columns.size() && (last == first || used + kGap + layout.metrics[last] <= width))
      used += kGap + layout.metrics[last++];
    if (first > 0) out += "\n";
    AppendTextBlock(table, cells, layout, first, last, out);
    first = last;
  } while (first < table.columns.size());
  return out;
}

std::string RenderMarkdown(const ReportTable& table) {
  auto escaped = [](const std::string& text) {
    std::string out;
    for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
    return out;
  };
  std::string header = "| run |", rule = "| --- |";
  for (const std::string& name : NameHeaders(table)) header += " " + name + " |", rule += " --- |";
  header += " n |", rule += " ---: |";
  for (const std::string& column : table.columns) header += " " + column + " |", rule += " ---: |";
  std::string out = header + "\n" + rule + "\n";
  for (const ReportRow& row : table.rows) {
    out += "| " + escaped(row.label) + " |";
    for (const std::string& name : NameTexts(table, row)) out += " " + escaped(name) + " |";
    out += " " + std::to_string(row.runs) + " |";
    for (const auto& cell : row.cells) {
      std::string text = cell ? CellText(*cell, row.runs) : "";
      out += " " + (cell && cell->best ? "**" + text + "**" : text) + PText(cell) + " |";
    }
    out += "\n";
  }
  return out;
}

std::string RenderCsv(const ReportTable& table) {
  const bool systems = table.rows_by == ReportRows::kSystems;
  std::string out = systems ? "run,node,system,reference,n" : "run,n";
  for (const std::string& column : table.columns)
    out += "," + CsvField(column) + "," + CsvField(column + ".std") + "," + CsvField(column + ".n") + "," +
           CsvField(column + ".p");
  out += "\n";
  for (const ReportRow& row : table.rows) {
    out += CsvField(row.label) + ",";
    if (systems) out += CsvField(row.node) + "," + CsvField(row.system) + "," + CsvField(row.reference) + ",";
    out += std::to_string(row.runs);
    for (const auto& cell : row.cells) {
      if (!cell) {
        out += ",,,,";
        continue;
      }
      out += "," + Precise(cell->mean) + "," + (cell->n > 1 ? Precise(cell->stddev) : "") + "," +
             std::to_string(cell->n) + "," + (cell->p ? Precise(*cell->p) : "");
    }
    out += "\n";
  }
  return out;
}

}  // namespace seqflow

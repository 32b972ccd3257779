#include "engine/record/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "engine/record/report_significance.h"

namespace seqflow {
namespace {

constexpr size_t kMaxLabelWidth = 40;
constexpr size_t kGap = 2;  // spaces between text columns

struct RunGroup {
  std::string label;      // runs with equal labels share a row
  std::string repeat_id;  // which repetition of its row the run is
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

// The node's value of `metric` when its kind is a declared evaluator and the value is finite.
std::optional<double> EvaluatorMetric(const PipelineRecord& record, const NodeRecord& node, const std::string& metric) {
  if (record.Declared(node.kind).role != NodeRole::kEvaluator) return std::nullopt;
  auto it = node.metrics.find(metric);
  if (it == node.metrics.end() || !std::isfinite(it->second)) return std::nullopt;
  return it->second;
}

// "<node>.<metric>" for every headline metric an evaluator reports in some run; nodes in name
// order, metrics in the order their kinds' headlines list them.
std::vector<std::string> Columns(const PipelineRecord& record) {
  std::map<std::string, std::vector<std::string>> headlines;  // node -> its kinds' headlines, merged
  std::set<std::pair<std::string, std::string>> reported;
  for (const RunRecord& run : record.runs)
    for (const auto& [name, node] : run.nodes)
      for (const std::string& metric : record.Declared(node.kind).headline) {
        std::vector<std::string>& list = headlines[name];
        if (std::find(list.begin(), list.end(), metric) == list.end()) list.push_back(metric);
        if (EvaluatorMetric(record, node, metric)) reported.insert({name, metric});
      }
  std::vector<std::string> columns;
  for (const auto& [node, metrics] : headlines)
    for (const std::string& metric : metrics)
      if (reported.count({node, metric})) columns.push_back(node + "." + metric);
  return columns;
}

std::optional<double> MetricOf(const PipelineRecord& record, const RunRecord& run, const std::string& column) {
  auto [node, metric] = SplitColumn(column);
  auto it = run.nodes.find(node);
  return it == run.nodes.end() ? std::nullopt : EvaluatorMetric(record, it->second, metric);
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

// One block of the text table: the label and n columns, then columns [first, last).
void AppendTextBlock(const ReportTable& table, const std::vector<std::vector<std::string>>& cells,
                     const std::vector<size_t>& widths, size_t label_width, size_t first, size_t last,
                     std::string& out) {
  const std::string gap(kGap, ' ');
  std::string header = Pad("run", label_width) + gap + "n";
  std::string rule = std::string(label_width, '-') + gap + "-";
  for (size_t c = first; c < last; ++c) {
    header += gap + Pad(table.columns[c], widths[c]);
    rule += gap + std::string(widths[c], '-');
  }
  out += header + "\n" + rule + "\n";
  for (size_t r = 0; r < table.rows.size(); ++r) {
    std::vector<std::string> label = WrapLabel(table.rows[r].label, label_width);
    std::string line = Pad(label[0], label_width) + gap + std::to_string(table.rows[r].runs);
    for (size_t c = first; c < last; ++c) line += gap + Pad(cells[r][c], widths[c]);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
    for (size_t i = 1; i < label.size(); ++i) out += label[i] + "\n";
  }
}

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string Precise(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

}  // namespace

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
  std::vector<std::vector<size_t>> members;  // row -> run indices
  std::vector<report::RowRepeats> repeats;   // row -> repeat id -> run index
  std::map<std::string, size_t> row_of;
  for (size_t i = 0; i < record.runs.size(); ++i) {
    RunGroup group = GroupOf(record.runs[i], record.repeat_axis);
    auto [it, inserted] = row_of.emplace(group.label, table.rows.size());
    if (inserted)
      table.rows.push_back({group.label, 0, {}}), members.emplace_back(), repeats.emplace_back(std::in_place);
    ++table.rows[it->second].runs;
    members[it->second].push_back(i);
    report::RowRepeats& row = repeats[it->second];
    if (row && !row->emplace(group.repeat_id, i).second) row.reset();
  }
  for (size_t r = 0; r < table.rows.size(); ++r)
    for (const std::string& column : table.columns) {
      std::vector<double> values;
      for (size_t i : members[r])
        if (std::optional<double> v = MetricOf(record, record.runs[i], column)) values.push_back(*v);
      table.rows[r].cells.push_back(Summarise(values));
    }
  MarkBest(table);
  report::AddPValues(record, repeats, sentences, table);
  return table;
}

std::string RenderText(const ReportTable& table, size_t width) {
  std::vector<std::vector<std::string>> cells = TextCells(table);
  std::vector<size_t> widths;
  for (size_t c = 0; c < table.columns.size(); ++c) {
    widths.push_back(DisplayWidth(table.columns[c]));
    for (const auto& row : cells) widths[c] = std::max(widths[c], DisplayWidth(row[c]));
  }
  size_t label_width = 3;  // "run"
  for (const ReportRow& row : table.rows) label_width = std::max(label_width, DisplayWidth(row.label));
  label_width = std::min(label_width, kMaxLabelWidth);
  size_t n_width = 1;
  for (const ReportRow& row : table.rows) n_width = std::max(n_width, std::to_string(row.runs).size());
  std::string out = table.pipeline + ": " + std::to_string(table.runs) + " runs, " + std::to_string(table.rows.size()) +
                    " rows (mean ± sd over repetitions; * = best)\n";
  if (table.has_p)
    out += "p: paired " +
           std::string(table.test.test == PairedTest::kBootstrap ? "bootstrap" : "approximate randomization") +
           " vs the best row over sentences, R = " + std::to_string(table.test.samples) + "; † p < " +
           FixedText(kSignificanceLevel, 2) + "\n";
  out += "\n";
  if (table.columns.empty()) out += "(no evaluator metrics)\n\n";
  size_t first = 0;
  do {
    size_t used = label_width + kGap + n_width, last = first;
    while (last < table.columns.size() && (last == first || used + kGap + widths[last] <= width))
      used += kGap + widths[last++];
    if (first > 0) out += "\n";
    AppendTextBlock(table, cells, widths, label_width, first, last, out);
    first = last;
  } while (first < table.columns.size());
  return out;
}

std::string RenderMarkdown(const ReportTable& table) {
  std::string header = "| run | n |", rule = "| --- | ---: |";
  for (const std::string& column : table.columns) header += " " + column + " |", rule += " ---: |";
  std::string out = header + "\n" + rule + "\n";
  for (const ReportRow& row : table.rows) {
    std::string label;
    for (char c : row.label) label += c == '|' ? std::string("\\|") : std::string(1, c);
    out += "| " + label + " | " + std::to_string(row.runs) + " |";
    for (const auto& cell : row.cells) {
      std::string text = cell ? CellText(*cell, row.runs) : "";
      out += " " + (cell && cell->best ? "**" + text + "**" : text) + PText(cell) + " |";
    }
    out += "\n";
  }
  return out;
}

std::string RenderCsv(const ReportTable& table) {
  std::string out = "run,n";
  for (const std::string& column : table.columns)
    out += "," + CsvField(column) + "," + CsvField(column + ".std") + "," + CsvField(column + ".n") + "," +
           CsvField(column + ".p");
  out += "\n";
  for (const ReportRow& row : table.rows) {
    out += CsvField(row.label) + "," + std::to_string(row.runs);
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

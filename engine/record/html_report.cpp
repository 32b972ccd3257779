#include "engine/record/html_report.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>

#include "engine/base/xml.h"
#include "engine/record/report.h"
#include "engine/record/summary.h"

namespace seqflow {
namespace {

using Json = nlohmann::json;

// The policy forbids scripts and every fetch, so the page provably works offline.
constexpr char kHead[] = R"(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 1200px; padding: 0 1em; color: #222; }
h1 { margin-bottom: 0.2em; } h2 { border-bottom: 1px solid #ddd; padding-bottom: 0.2em; margin-top: 1.6em; }
.meta, .note { color: #666; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-size: 0.9em; }
th, td { border: 1px solid #ddd; padding: 0.3em 0.6em; text-align: left; vertical-align: top; }
th { background: #f4f6f8; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.best { background: #e3f4e1; font-weight: bold; }
td.computed { background: #fff4dd; } td.cached { background: #e3f4e1; }
td.failed { background: #fbe0e0; } td.skipped { color: #999; }
small { color: #666; font-weight: normal; }
figure { display: inline-block; margin: 0 1em 1em 0; } figcaption { color: #666; font-size: 0.9em; }
</style>
)";

std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// As the text report: "0.8279", "0.8279 ± 0.0123", " (n=K)" when only K of the row's runs report it.
std::string CellText(const ReportCell& cell, size_t row_runs) {
  std::string s = Fixed(cell.mean, 4);
  if (cell.n > 1) s += " ± " + Fixed(cell.stddev, 4);
  if (cell.n != row_runs) s += " (n=" + std::to_string(cell.n) + ")";
  return s + PValueText(cell);
}

// run["nodes"], or an empty object; a reference into `run`, so it may be iterated (value()
// returns a temporary, which a range-for over its items() would outlive).
const Json& NodesOf(const Json& run) {
  static const Json kEmpty = Json::object();
  auto it = run.find("nodes");
  return it != run.end() && it->is_object() ? *it : kEmpty;
}

// A field shown as text: strings as they are, other values as JSON, absent as `fallback`.
std::string TextOf(const Json& j, const char* key, const std::string& fallback) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  return it->is_string() ? it->get<std::string>() : it->dump();
}

std::string RunLabel(const Json& run) {
  const Json& axes = run.value("axes", Json::object());
  const Json& assignment = axes.is_object() && !axes.empty() ? axes : run.value("ablation", Json::object());
  std::string label;
  if (assignment.is_object())
    for (const auto& [k, v] : assignment.items())
      label += (label.empty() ? "" : ", ") + k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
  return label.empty() ? "base" : label;
}

// Runs whose graphs have the same nodes and edges, drawn once; kinds[i] lists every kind node
// i takes in those runs.
struct GraphGroup {
  GraphShape shape;
  std::vector<std::vector<std::string>> kinds;
  std::vector<size_t> runs;
};

bool SameStructure(const GraphShape& a, const GraphShape& b) {
  auto edge_eq = [](const GraphShape::Edge& x, const GraphShape::Edge& y) {
    return x.from == y.from && x.to == y.to && x.port == y.port;
  };
  auto name_eq = [](const GraphShape::Node& x, const GraphShape::Node& y) { return x.name == y.name; };
  return std::equal(a.nodes.begin(), a.nodes.end(), b.nodes.begin(), b.nodes.end(), name_eq) &&
         std::equal(a.edges.begin(), a.edges.end(), b.edges.begin(), b.edges.end(), edge_eq);
}

std::vector<GraphGroup> GroupGraphs(const std::vector<GraphShape>& graphs) {
  std::vector<GraphGroup> groups;
  for (size_t r = 0; r < graphs.size(); ++r) {
    if (graphs[r].nodes.empty()) continue;
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return SameStructure(g.shape, graphs[r]); });
    if (it == groups.end()) it = groups.insert(groups.end(), {graphs[r], std::vector<std::vector<std::string>>(graphs[r].nodes.size()), {}});
    it->runs.push_back(r);
    for (size_t i = 0; i < graphs[r].nodes.size(); ++i) {
      std::vector<std::string>& kinds = it->kinds[i];
      if (std::find(kinds.begin(), kinds.end(), graphs[r].nodes[i].kind) == kinds.end())
        kinds.push_back(graphs[r].nodes[i].kind);
    }
  }
  return groups;
}

std::string RunList(const std::vector<size_t>& runs) {
  std::string out = runs.size() == 1 ? "run" : "runs";
  for (size_t i = 0; i < runs.size(); ++i) out += (i == 0 ? " " : ", ") + std::to_string(runs[i] + 1);
  return out;
}

std::string GraphSection(const std::vector<GraphShape>& graphs) {
  std::string out = "<section id=\"graph\">\n<h2>Pipeline</h2>\n";
  std::vector<GraphGroup> groups = GroupGraphs(graphs);
  if (groups.empty())
    return out + "<p class=\"note\">This record keeps no graph (written by an older seqflow); run the pipeline "
                 "again to draw it.</p>\n</section>\n";
  for (GraphGroup& group : groups) {
    for (size_t i = 0; i < group.shape.nodes.size(); ++i) {
      std::string joined;
      for (const std::string& kind : group.kinds[i]) joined += (joined.empty() ? "" : " | ") + kind;
      group.shape.nodes[i].kind = joined;
    }
    if (groups.size() > 1) out += "<p class=\"note\">" + XmlEscape(RunList(group.runs)) + "</p>\n";
    out += "<div class=\"scroll\">\n" + GraphSvg(group.shape) + "</div>\n";
  }
  return out + "</section>\n";
}

std::string CompareSection(const ReportTable& table) {
  std::string out = "<section id=\"comparison\">\n<h2>Comparison</h2>\n";
  if (table.columns.empty()) return out + "<p class=\"note\">No evaluator metrics in this record.</p>\n</section>\n";
  out += "<p class=\"note\">Mean ± sample standard deviation over repeated runs; the best of each column is "
         "highlighted.</p>\n<div class=\"scroll\"><table class=\"compare\">\n<tr><th>setting</th><th>runs</th>";
  for (const std::string& column : table.columns) out += "<th>" + XmlEscape(column) + "</th>";
  out += "</tr>\n";
  for (const ReportRow& row : table.rows) {
    out += "<tr><td>" + XmlEscape(row.label) + "</td><td class=\"num\">" + std::to_string(row.runs) + "</td>";
    for (const auto& cell : row.cells) {
      if (!cell) out += "<td class=\"num\">–</td>";
      else if (cell->best) out += "<td class=\"num best\" title=\"best\">" + XmlEscape(CellText(*cell, row.runs)) + "</td>";
      else out += "<td class=\"num\">" + XmlEscape(CellText(*cell, row.runs)) + "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</table></div>\n</section>\n";
}

std::string PlotSection(const std::vector<HtmlPlot>& plots) {
  if (plots.empty()) return "";
  std::string out = "<section id=\"plots\">\n<h2>Plots</h2>\n";
  for (const HtmlPlot& plot : plots)
    out += "<figure>\n" + plot.svg + "<figcaption>" + XmlEscape(plot.title) + "</figcaption>\n</figure>\n";
  return out + "</section>\n";
}

// Node names in the first recorded graph's (topological) order, then any others by name.
std::vector<std::string> NodeOrder(const Json& runs, const std::vector<GraphShape>& graphs) {
  std::vector<std::string> order;
  for (const GraphShape& g : graphs)
    if (!g.nodes.empty() && order.empty())
      for (const auto& node : g.nodes) order.push_back(node.name);
  std::set<std::string> listed(order.begin(), order.end());
  for (const Json& run : runs)
    for (const auto& [name, node] : NodesOf(run).items())
      if (listed.insert(name).second) order.push_back(name);
  return order;
}

std::string NodeCell(const Json& nodes, const std::string& name) {
  if (!nodes.contains(name)) return "<td class=\"skipped\">–</td>";
  const Json& node = nodes[name];
  std::string status = TextOf(node, "status", "unknown");
  std::string title = TextOf(node, "kind", "");
  if (node.contains("error")) title += ": " + TextOf(node, "error", "");
  const Json& seconds = node.value("seconds", Json());
  std::string time = seconds.is_number() ? Fixed(seconds.get<double>(), 3) + " s" : "";
  return "<td class=\"num " + XmlEscape(status) + "\" title=\"" + XmlEscape(title) + "\">" + XmlEscape(status) +
         "<br><small>" + time + "</small></td>";
}

std::string NodesSection(const Json& runs, const std::vector<GraphShape>& graphs) {
  std::string out =
      "<section id=\"nodes\">\n<h2>Nodes</h2>\n<p class=\"note\">Per run: computed, or cached (loaded from the "
      "cache or shared with an earlier run), and the node's wall time.</p>\n<div class=\"scroll\"><table "
      "class=\"nodes\">\n<tr><th>node</th>";
  for (size_t r = 0; r < runs.size(); ++r)
    out += "<th>run " + std::to_string(r + 1) + "<br><small>" + XmlEscape(RunLabel(runs[r])) + "</small></th>";
  out += "</tr>\n";
  for (const std::string& name : NodeOrder(runs, graphs)) {
    out += "<tr><td>" + XmlEscape(name) + "</td>";
    for (const Json& run : runs) out += NodeCell(NodesOf(run), name);
    out += "</tr>\n";
  }
  out += "<tr><th>run total</th>";
  for (const Json& run : runs) {
    const Json& seconds = run.value("seconds", Json());
    out += "<th class=\"num\">" + (seconds.is_number() ? Fixed(seconds.get<double>(), 3) + " s" : "") + "</th>";
  }
  return out + "</tr>\n</table></div>\n</section>\n";
}

std::string Header(const ReportTable& table, const Json& summary) {
  const Json& seconds = summary.value("seconds", Json());
  std::string meta = std::to_string(table.runs) + (table.runs == 1 ? " run" : " runs");
  if (seconds.is_number()) meta += " · " + Fixed(seconds.get<double>(), 1) + " s wall time";
  std::string name = XmlEscape(table.pipeline);
  return "<title>seqflow report: " + name + "</title>\n</head>\n<body>\n<h1>" + name + "</h1>\n<p class=\"meta\">" +
         meta + " · seqflow run record</p>\n";
}

}  // namespace

Result<std::string> RenderHtmlReport(std::string_view summary_json, const std::vector<HtmlPlot>& plots,
                                     const SentenceFiles& sentences) {
  Result<ReportTable> table = BuildReport(summary_json, sentences);
  if (!table.ok()) return table.status();
  Result<std::vector<GraphShape>> graphs = RunGraphs(summary_json);
  if (!graphs.ok()) return graphs.status();
  Json summary = Json::parse(summary_json);
  const Json& runs = summary["runs"];
  std::string out = kHead + Header(*table, summary);
  out += GraphSection(*graphs) + CompareSection(*table) + PlotSection(plots) + NodesSection(runs, *graphs);
  return out + "</body>\n</html>\n";
}

}  // namespace seqflow

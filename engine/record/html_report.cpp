#include "engine/record/html_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "engine/base/xml.h"

namespace seqflow {
namespace {

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

// "12.345 s", or "" for a time that was not finite.
std::string Seconds(double seconds, int digits) { return std::isfinite(seconds) ? FixedText(seconds, digits) + " s" : ""; }

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
      else if (cell->best) out += "<td class=\"num best\" title=\"best\">" + XmlEscape(CellText(*cell, row.runs) + PValueText(*cell)) + "</td>";
      else out += "<td class=\"num\">" + XmlEscape(CellText(*cell, row.runs) + PValueText(*cell)) + "</td>";
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
std::vector<std::string> NodeOrder(const PipelineRecord& record) {
  std::vector<std::string> order;
  for (const RunRecord& run : record.runs)
    if (!run.graph.nodes.empty() && order.empty())
      for (const auto& node : run.graph.nodes) order.push_back(node.name);
  std::set<std::string> listed(order.begin(), order.end());
  for (const RunRecord& run : record.runs)
    for (const auto& [name, node] : run.nodes)
      if (listed.insert(name).second) order.push_back(name);
  return order;
}

std::string NodeCell(const RunRecord& run, const std::string& name) {
  auto found = run.nodes.find(name);
  if (found == run.nodes.end()) return "<td class=\"skipped\">–</td>";
  const NodeRecord& node = found->second;
  const std::string status = NodeStatusName(node.status);
  const std::string title = node.kind + (node.error.empty() ? "" : ": " + node.error);
  return "<td class=\"num " + XmlEscape(status) + "\" title=\"" + XmlEscape(title) + "\">" + XmlEscape(status) +
         "<br><small>" + Seconds(node.seconds, 3) + "</small></td>";
}

std::string NodesSection(const PipelineRecord& record) {
  std::string out =
      "<section id=\"nodes\">\n<h2>Nodes</h2>\n<p class=\"note\">Per run: computed, or cached (loaded from the "
      "cache or shared with an earlier run), and the node's wall time.</p>\n<div class=\"scroll\"><table "
      "class=\"nodes\">\n<tr><th>node</th>";
  for (size_t r = 0; r < record.runs.size(); ++r)
    out += "<th>run " + std::to_string(r + 1) + "<br><small>" + XmlEscape(RunLabel(record.runs[r])) + "</small></th>";
  out += "</tr>\n";
  for (const std::string& name : NodeOrder(record)) {
    out += "<tr><td>" + XmlEscape(name) + "</td>";
    for (const RunRecord& run : record.runs) out += NodeCell(run, name);
    out += "</tr>\n";
  }
  out += "<tr><th>run total</th>";
  for (const RunRecord& run : record.runs) out += "<th class=\"num\">" + Seconds(run.seconds, 3) + "</th>";
  return out + "</tr>\n</table></div>\n</section>\n";
}

std::string Header(const PipelineRecord& record) {
  std::string meta = std::to_string(record.runs.size()) + (record.runs.size() == 1 ? " run" : " runs");
  if (std::isfinite(record.seconds)) meta += " · " + FixedText(record.seconds, 1) + " s wall time";
  std::string name = XmlEscape(record.pipeline);
  return "<title>seqflow report: " + name + "</title>\n</head>\n<body>\n<h1>" + name + "</h1>\n<p class=\"meta\">" +
         meta + " · seqflow run record</p>\n";
}

}  // namespace

std::string RenderHtmlReport(const PipelineRecord& record, const std::vector<HtmlPlot>& plots,
                             const SentenceFiles& sentences) {
  std::vector<GraphShape> graphs;
  for (const RunRecord& run : record.runs) graphs.push_back(run.graph);
  std::string out = kHead + Header(record);
  out +=
      GraphSection(graphs) + CompareSection(BuildReport(record, sentences)) + PlotSection(plots) + NodesSection(record);
  return out + "</body>\n</html>\n";
}

}  // namespace seqflow

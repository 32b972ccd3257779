#include "engine/record/overlay_plots.h"

#include <algorithm>

namespace seqflow {
namespace {


bool SameLine(const PlotSeries& a, const PlotSeries& b) {
  auto equal = [](const std::vector<double>& u, const std::vector<double>& v) {
    return u.size() == v.size() && std::equal(u.begin(), u.end(), v.begin(), [](double p, double q) {
             return p == q || (p != p && q != q);  // NaN rows match NaN rows
           });
  };
  return equal(a.x, b.x) && equal(a.y, b.y);
}

// Adds `series` of the run labelled `label` to `plot`, or its label to an identical line's name.
void AddRunSeries(const std::string& label, bool several_columns, PlotSeries series, LinePlot& plot) {
  const std::string name = several_columns ? label + ": " + series.name : label;
  const std::string column = several_columns ? ": " + series.name : "";
  for (PlotSeries& existing : plot.series)
    if (existing.name.ends_with(column) && SameLine(existing, series)) {
      existing.name.insert(existing.name.size() - column.size(), " | " + label);
      return;
    }
  series.name = name;
  plot.series.push_back(std::move(series));
}

}  // namespace

std::string TablePlotTitle(const std::string& node, const LinePlot& plot) {
  return node + ": " + plot.y_label + " against " + plot.x_label;
}

std::vector<OverlaidPlot> OverlaidTablePlots(const PipelineRecord& record,
                                             const std::map<std::string, std::string>& tables) {
  std::map<std::pair<std::string, std::string>, std::vector<DeclaredAttachment>> groups;
  for (const DeclaredAttachment& a : AttachmentsOf(record, AttachmentType::kTable))
    groups[{a.node, a.spec->suffix}].push_back(a);
  std::vector<OverlaidPlot> out;
  for (const auto& [key, attachments] : groups) {
    if (attachments.size() < 2) continue;
    OverlaidPlot overlaid;
    const std::string& suffix = key.second;
    overlaid.file = key.first + "." + suffix.substr(0, suffix.rfind('.')) + ".svg";
    for (const DeclaredAttachment& a : attachments) {
      auto text = tables.find(a.path);
      if (text == tables.end()) continue;
      Result<LinePlot> plot = TablePlot(text->second, a.path, *a.spec);
      if (!plot.ok()) continue;
      if (overlaid.plot.series.empty()) {
        overlaid.plot.x_label = plot->x_label;
        overlaid.plot.y_label = plot->y_label;
      }
      for (PlotSeries& series : plot->series)
        AddRunSeries(RunLabel(record.runs[a.run]), plot->series.size() > 1, std::move(series), overlaid.plot);
    }
    if (overlaid.plot.series.empty()) continue;
    overlaid.plot.title = TablePlotTitle(key.first, overlaid.plot) + ", every run";
    out.push_back(std::move(overlaid));
  }
  return out;
}

}  // namespace seqflow

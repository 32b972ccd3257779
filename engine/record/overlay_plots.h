// The plots of a record with several runs that a reader compares: one plot per table attachment
// (a homotopy path, a training trace) with every run's lines on it, each named by the run's
// setting in the legend, titled by what is plotted. A run whose lines are the very numbers of an
// earlier run's (the same trainer, cached, under another decoder) adds its setting to that line's
// name instead of a second, hidden copy. Pure; thread-safe.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/record/run_record.h"
#include "engine/record/svg_plot.h"

namespace seqflow {

struct OverlaidPlot {
  std::string file;  // "<node>.<suffix stem>.svg", at the top of the record's folder
  LinePlot plot;
};

// "em: objective against iteration": what a table attachment's plot shows.
std::string TablePlotTitle(const std::string& node, const LinePlot& plot);

// One OverlaidPlot per (node, table suffix) that at least two runs attached; `tables` holds the
// text of each table attachment by its path in the record (AttachmentsOf(..., kTable)). Tables
// missing from `tables` or unreadable as their kind declares are left out.
std::vector<OverlaidPlot> OverlaidTablePlots(const PipelineRecord& record,
                                             const std::map<std::string, std::string>& tables);

}  // namespace seqflow

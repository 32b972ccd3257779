// `seqflow report DIR --html`: one self-contained HTML page of a run record that opens from disk
// with no server, no network and no script — inline CSS and inline SVG only. It shows
//   - the pipeline graph, drawn from the runs' recorded graphs (runs with the same nodes and
//     edges share one drawing; a node whose kind an ablation swaps lists every kind it took),
//   - the comparison table of BuildReport, the best value of each column marked,
//   - the plots given (the path plots of `report --plots`),
//   - per node and run: computed, cached, failed or skipped, and the node's wall time.
// Every text taken from the record is HTML-escaped. Pure: strings in, string out; the CLI
// reads the record and writes the page. Thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/record/report.h"
#include "engine/record/run_record.h"

namespace seqflow {

struct HtmlPlot {
  std::string title;  // caption, escaped on output
  std::string svg;    // an SVG document from RenderSvg, embedded verbatim (trusted)
};

// The page for a run record and its plots; with the evaluators' sentence files the table cells
// carry paired p-values as in the text report.
std::string RenderHtmlReport(const PipelineRecord& record, const std::vector<HtmlPlot>& plots,
                             const SentenceFiles& sentences = {});

}  // namespace seqflow

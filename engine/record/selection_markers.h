// Where each λ criterion landed on a homotopy path, for the path plots (issue: "metric vs λ along
// a homotopy path with the chosen λ of each criterion marked", Haffari & Sarkar Fig. 2-4).
// A run's recorded graph says which nodes read a path node; those whose kind the record declares
// a selector (NodeRole::kSelector) chose the λ in their RecordSpec::chosen_lambda metric.
// Pure: record in, markers out. Thread-safe.
#pragma once

#include <string>
#include <vector>

#include "engine/record/run_record.h"
#include "engine/record/svg_plot.h"

namespace seqflow {

// One marker per selector reading `node` in run `run`, at its chosen λ, labelled with the
// selector's name; in the order of the graph's edges. Empty when the run has no graph, no such
// selector, or the selector did not report its chosen λ. REQUIRES: run < record.runs.size().
std::vector<PlotMarker> SelectionMarkers(const PipelineRecord& record, size_t run, const std::string& node);

}  // namespace seqflow

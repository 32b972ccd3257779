// Where each λ criterion landed on a homotopy path, for the path plots (issue: "metric vs λ along
// a homotopy path with the chosen λ of each criterion marked", Haffari & Sarkar Fig. 2-4).
// A run record's graph (summary.json "graph") says which `homotopy.select` nodes read a path
// node; their `lambda` metric is the chosen λ.
// Pure: text in, markers out. Thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"
#include "engine/record/svg_plot.h"

namespace seqflow {

// The plot file DIR/run-3/path.path.csv names run 3 and node "path"; DIR/path.path.csv names run
// 0. `relative` is the path below DIR. Empty node when the name has no ".path.csv" suffix.
struct PathCsvOrigin {
  size_t run = 0;
  std::string node;
};
PathCsvOrigin PathCsvOriginOf(std::string_view relative);

// One marker per homotopy.select node reading `path_node` in run `run`, at its chosen λ,
// labelled with the select node's name; in the graph's node order. Empty when the record has no
// graph or no such node. kInvalid when the summary is not JSON.
Result<std::vector<PlotMarker>> SelectionMarkers(std::string_view summary_json, size_t run,
                                                 const std::string& path_node);

}  // namespace seqflow

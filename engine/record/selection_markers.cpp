#include "engine/record/selection_markers.h"

#include <cmath>

namespace seqflow {

std::vector<PlotMarker> SelectionMarkers(const PipelineRecord& record, size_t run, const std::string& node) {
  const RunRecord& r = record.runs[run];
  std::vector<PlotMarker> markers;
  for (const GraphShape::Edge& edge : r.graph.edges) {
    if (r.graph.nodes[edge.from].name != node) continue;
    const std::string& reader = r.graph.nodes[edge.to].name;
    auto found = r.nodes.find(reader);
    if (found == r.nodes.end()) continue;
    const RecordSpec& spec = record.Declared(found->second.kind);
    if (spec.role != NodeRole::kSelector) continue;
    auto chosen = found->second.metrics.find(spec.chosen_lambda);
    if (chosen != found->second.metrics.end() && std::isfinite(chosen->second))
      markers.push_back({chosen->second, reader});
  }
  return markers;
}

}  // namespace seqflow

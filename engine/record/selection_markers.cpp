#include "engine/record/selection_markers.h"

#include <nlohmann/json.hpp>

namespace seqflow {

PathCsvOrigin PathCsvOriginOf(std::string_view relative) {
  constexpr std::string_view kSuffix = ".path.csv";
  PathCsvOrigin origin;
  if (relative.size() <= kSuffix.size() || !relative.ends_with(kSuffix)) return origin;
  const size_t slash = relative.rfind('/');
  std::string_view file = slash == std::string_view::npos ? relative : relative.substr(slash + 1);
  origin.node = std::string(file.substr(0, file.size() - kSuffix.size()));
  if (slash != std::string_view::npos) {
    std::string_view folder = relative.substr(0, slash);
    if (const size_t dash = folder.rfind("run-"); dash != std::string_view::npos)
      origin.run = std::strtoul(std::string(folder.substr(dash + 4)).c_str(), nullptr, 10);
  }
  return origin;
}

Result<std::vector<PlotMarker>> SelectionMarkers(std::string_view summary_json, size_t run,
                                                 const std::string& path_node) {
  const nlohmann::json summary = nlohmann::json::parse(summary_json, nullptr, /*allow_exceptions=*/false);
  if (summary.is_discarded()) return Status::Invalid("summary.json is not valid JSON");
  std::vector<PlotMarker> markers;
  const nlohmann::json* runs = summary.contains("runs") ? &summary["runs"] : nullptr;
  if (!runs || !runs->is_array() || run >= runs->size()) return markers;
  const nlohmann::json& r = (*runs)[run];
  if (!r.contains("graph") || !r.contains("nodes")) return markers;
  for (const nlohmann::json& edge : r["graph"].value("edges", nlohmann::json::array())) {
    if (edge.value("from", "") != path_node) continue;
    const std::string to = edge.value("to", "");
    const nlohmann::json& node = r["nodes"].value(to, nlohmann::json::object());
    if (node.value("kind", "") != "homotopy.select") continue;
    const nlohmann::json& metrics = node.value("metrics", nlohmann::json::object());
    if (metrics.contains("lambda") && metrics["lambda"].is_number())
      markers.push_back({metrics["lambda"].get<double>(), to});
  }
  return markers;
}

}  // namespace seqflow

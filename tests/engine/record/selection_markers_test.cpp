#include "engine/record/selection_markers.h"

#include <gtest/gtest.h>

#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace {

TEST(SelectionMarkersTest, OriginOfAPathCsv) {
  EXPECT_EQ(PathCsvOriginOf("run-3/path.path.csv").run, 3u);
  EXPECT_EQ(PathCsvOriginOf("run-3/path.path.csv").node, "path");
  EXPECT_EQ(PathCsvOriginOf("sweep.path.csv").run, 0u);
  EXPECT_EQ(PathCsvOriginOf("sweep.path.csv").node, "sweep");
  EXPECT_EQ(PathCsvOriginOf("run-1/em.objective.csv").node, "");
}

TEST(SelectionMarkersTest, OneMarkerPerSelectNodeReadingThePath) {
  const std::string summary = R"({"runs": [{}, {
    "graph": {"nodes": [], "edges": [
      {"from": "path", "to": "monotone", "port": "path"},
      {"from": "path", "to": "max_entropy", "port": "path"},
      {"from": "other", "to": "fixed", "port": "path"},
      {"from": "path", "to": "decode", "port": "model"}]},
    "nodes": {
      "monotone": {"kind": "homotopy.select", "metrics": {"lambda": 0.6475}},
      "max_entropy": {"kind": "homotopy.select", "metrics": {"lambda": 0.005}},
      "fixed": {"kind": "homotopy.select", "metrics": {"lambda": 0.3}},
      "decode": {"kind": "decode.viterbi", "metrics": {"lambda": 9}}}}]})";
  Result<std::vector<PlotMarker>> markers = SelectionMarkers(summary, 1, "path");
  ASSERT_OK(markers);
  ASSERT_EQ(markers->size(), 2u);
  EXPECT_EQ((*markers)[0].label, "monotone");
  EXPECT_DOUBLE_EQ((*markers)[0].x, 0.6475);
  EXPECT_EQ((*markers)[1].label, "max_entropy");
  EXPECT_DOUBLE_EQ((*markers)[1].x, 0.005);
  ASSERT_OK(SelectionMarkers(summary, 0, "path"));
  EXPECT_TRUE(SelectionMarkers(summary, 0, "path")->empty());  // a run without a graph
  EXPECT_TRUE(SelectionMarkers(summary, 7, "path")->empty());
  EXPECT_EQ(SelectionMarkers("{", 0, "path").status().code(), StatusCode::kInvalid);
}

}  // namespace
}  // namespace seqflow

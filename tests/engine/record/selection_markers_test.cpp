#include "engine/record/selection_markers.h"

#include <gtest/gtest.h>

#include "tests/engine/record/record_fixture.h"

namespace seqflow {
namespace selection_markers_test {

using testkit::ParseRecord;

// Run 1 has a path read by two declared selectors, a selector of another path, a decoder that
// reports a "lambda" of its own, a selector whose kind is named like none of the homotopy kinds,
// and a `homotopy.select` node whose kind this record does not declare a selector.
const char kSummary[] = R"({"pipeline": "p",
  "kinds": {"homotopy.select": {"role": "selector", "chosen_lambda": "lambda"},
            "pick.any": {"role": "selector", "chosen_lambda": "chosen"},
            "decode.viterbi": {"role": "other"}},
  "runs": [{"nodes": {}}, {
    "graph": {"nodes": [{"name": "path", "kind": "p"}, {"name": "other", "kind": "p"},
                        {"name": "monotone", "kind": "homotopy.select"},
                        {"name": "max_entropy", "kind": "homotopy.select"},
                        {"name": "fixed", "kind": "homotopy.select"},
                        {"name": "decode", "kind": "decode.viterbi"},
                        {"name": "custom", "kind": "pick.any"},
                        {"name": "old", "kind": "old.select"}],
              "edges": [{"from": "path", "to": "monotone", "port": "path"},
                        {"from": "path", "to": "max_entropy", "port": "path"},
                        {"from": "other", "to": "fixed", "port": "path"},
                        {"from": "path", "to": "decode", "port": "model"},
                        {"from": "path", "to": "custom", "port": "path"},
                        {"from": "path", "to": "old", "port": "path"}]},
    "nodes": {
      "monotone": {"kind": "homotopy.select", "status": "computed", "metrics": {"lambda": 0.6475}},
      "max_entropy": {"kind": "homotopy.select", "status": "computed", "metrics": {"lambda": 0.005}},
      "fixed": {"kind": "homotopy.select", "status": "computed", "metrics": {"lambda": 0.3}},
      "decode": {"kind": "decode.viterbi", "status": "computed", "metrics": {"lambda": 9}},
      "custom": {"kind": "pick.any", "status": "computed", "metrics": {"lambda": 7, "chosen": 0.25}},
      "old": {"kind": "old.select", "status": "computed", "metrics": {"lambda": 0.5}}}}]})";

TEST(SelectionMarkersTest, OneMarkerPerDeclaredSelectorReadingThePath) {
  PipelineRecord record = ParseRecord(kSummary);
  ASSERT_EQ(record.runs.size(), 2u);
  std::vector<PlotMarker> markers = SelectionMarkers(record, 1, "path");
  ASSERT_EQ(markers.size(), 3u);
  EXPECT_EQ(markers[0].label, "monotone");
  EXPECT_DOUBLE_EQ(markers[0].x, 0.6475);
  EXPECT_EQ(markers[1].label, "max_entropy");
  EXPECT_DOUBLE_EQ(markers[1].x, 0.005);
  EXPECT_EQ(markers[2].label, "custom") << "declared selectors count whatever their kind is called";
  EXPECT_DOUBLE_EQ(markers[2].x, 0.25) << "at the metric the kind declares, not at one named lambda";
  EXPECT_TRUE(SelectionMarkers(record, 0, "path").empty());  // a run without a graph
  EXPECT_EQ(SelectionMarkers(record, 1, "other").size(), 1u);
}

}  // namespace selection_markers_test
}  // namespace seqflow

// A drawing of a pipeline's DAG without Graphviz, for `seqflow graph --svg` when `dot` is not
// installed and for the HTML report (which must draw the graph of a run from summary.json alone).
//
// GraphShape is what a drawing needs — node names, kinds and edges — and nothing of the Dag's
// parameters or keys, so it can be written to and read back from the run record.
// Layout: longest-path layering (a node sits one row below its lowest input), nodes of a row
// ordered by the mean position of their inputs (ties: topological order), rows centred.
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "engine/graph/dag.h"

namespace seqflow {

struct GraphShape {
  struct Node {
    std::string name, kind;
  };
  struct Edge {
    int from = 0, to = 0;  // indices into nodes; REQUIRES: from < to
    std::string port;      // the consumer's input port
  };
  std::vector<Node> nodes;  // topological order: inputs before consumers
  std::vector<Edge> edges;

  bool operator==(const GraphShape&) const = default;
};

// The names, kinds and edges of `dag`, nodes in the Dag's (topological) order.
GraphShape ShapeOf(const Dag& dag);

// One node's box, in pixels from the top-left corner of the drawing.
struct NodeBox {
  int layer = 0;  // row, 0 at the top
  double x = 0, y = 0, width = 0, height = 0;
};

struct GraphLayout {
  std::vector<NodeBox> boxes;  // one per GraphShape::nodes entry
  double width = 0, height = 0;
};

// Boxes wide enough for the node's name and kind; boxes of a row do not overlap.
GraphLayout LayoutGraph(const GraphShape& shape);

// A standalone SVG document: per node a <g class="node"> with a rect and the name and kind as
// text, per edge a <g class="edge"> with a line and a filled arrowhead (no ids, so several
// drawings can share one HTML page). Every text is XML-escaped.
std::string GraphSvg(const GraphShape& shape);

}  // namespace seqflow

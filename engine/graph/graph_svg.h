// A drawing of a pipeline's DAG, for `seqflow graph --svg` and the HTML report (which must draw
// the graph of a run from summary.json alone).
//
// GraphShape is what a drawing needs — node names, kinds and edges — and nothing of the Dag's
// parameters or keys, so it can be written to and read back from the run record.
// Layout: Graphviz's dot, in process (cgraph + gvc, the dot layout plugin linked in, so no
// plugin configuration or `dot` program is needed): ranks top to bottom, crossings minimised,
// edges routed as splines around the boxes. Boxes are sized here from the text they carry.
// Thread-safe: Graphviz keeps global state, so layouts are serialised by a lock.
#pragma once

#include <string>
#include <vector>

#include "engine/base/status.h"
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

// Drawing coordinates: pixels from the top-left corner, y downwards.
struct GraphPoint {
  double x = 0, y = 0;
};

struct NodeBox {
  double x = 0, y = 0, width = 0, height = 0;  // top-left corner and size
};

struct EdgeRoute {
  std::vector<GraphPoint> bezier;  // cubic Bézier: the start, then three points per piece
  GraphPoint tip;                  // the arrowhead's point, on the target's box; the arrowhead
                                   // runs from bezier.back() to here
};

struct GraphLayout {
  std::vector<NodeBox> boxes;    // one per GraphShape::nodes entry
  std::vector<EdgeRoute> edges;  // one per GraphShape::edges entry
  double width = 0, height = 0;  // every box and route lies inside
};

// Boxes wide enough for the node's name and kind. Internal when Graphviz fails (it reports no
// failure on a well-formed shape short of running out of memory).
Result<GraphLayout> LayoutGraph(const GraphShape& shape);

// A standalone SVG document of `shape` drawn at `layout`: per node a <g class="node"> with a
// rect and the name and kind as text, per edge a <g class="edge"> with a path and a filled
// arrowhead (no ids, so several drawings can share one HTML page). Every text is XML-escaped.
// REQUIRES: `layout` is LayoutGraph(shape)'s.
std::string GraphSvg(const GraphShape& shape, const GraphLayout& layout);

// LayoutGraph, then the document above; should the layout fail, a one-line drawing of the error
// (a report page is not lost for its picture).
std::string GraphSvg(const GraphShape& shape);

}  // namespace seqflow

#include "engine/graph/graph_svg.h"

#include <graphviz/gvc.h>
#include <graphviz/gvplugin.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <mutex>

#include "engine/base/xml.h"

// The dot layout plugin's entry, from libgvplugin_dot_layout (linked in, see CMakeLists.txt).
extern "C" gvplugin_library_t gvplugin_dot_layout_LTX_library;

namespace seqflow {
namespace {

// Pixels; Graphviz works in points, and one point is drawn as one pixel.
constexpr double kMargin = 12, kRankGap = 48, kNodeGap = 24, kBoxHeight = 42, kPointsPerInch = 72;
constexpr double kNameCharWidth = 7.8, kKindCharWidth = 6.4, kBoxPadding = 20, kMinBoxWidth = 72;
constexpr double kArrowHalfWidth = 4;

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// Code points: every glyph of a name or kind is about one character wide.
double Chars(const std::string& s) {
  return static_cast<double>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

double BoxWidth(const GraphShape::Node& node) {
  return std::max(kMinBoxWidth,
                  std::max(Chars(node.name) * kNameCharWidth, Chars(node.kind) * kKindCharWidth) + kBoxPadding);
}

// Graphviz's C API takes mutable char* for names and values it only reads.
char* C(const std::string& s) { return const_cast<char*>(s.c_str()); }

// One Graphviz context for the process, with only the dot layout, registered from the linked
// plugin rather than found through a plugin configuration file. Created under the layout lock.
GVC_t* Context() {
  static lt_symlist_t builtins[] = {{"gvplugin_dot_layout_LTX_library", &gvplugin_dot_layout_LTX_library},
                                    {nullptr, nullptr}};
  static GVC_t* gvc = gvContextPlugins(builtins, 0);  // never freed: the process keeps it
  return gvc;
}

struct GraphCloser {
  void operator()(Agraph_t* g) const { agclose(g); }
};

// A GraphShape as a Graphviz graph; nodes[i] and edges[e] are the shape's i-th node, e-th edge.
struct CGraph {
  std::unique_ptr<Agraph_t, GraphCloser> graph;
  std::vector<Agnode_t*> nodes;
  std::vector<Agedge_t*> edges;
};

// Nodes and edges named by index (a node's name may hold any character); boxes of fixed size
// and no label, so Graphviz measures no text: the SVG writes it.
CGraph BuildGraph(const GraphShape& shape) {
  CGraph out;
  out.graph.reset(agopen(C("pipeline"), Agdirected, nullptr));
  Agraph_t* g = out.graph.get();
  agattr(g, AGRAPH, C("nodesep"), C(std::to_string(kNodeGap / kPointsPerInch)));
  agattr(g, AGRAPH, C("ranksep"), C(std::to_string(kRankGap / kPointsPerInch)));
  agattr(g, AGNODE, C("shape"), C("box"));
  agattr(g, AGNODE, C("fixedsize"), C("true"));
  agattr(g, AGNODE, C("label"), C(""));
  Agsym_t* width = agattr(g, AGNODE, C("width"), C("1"));
  agattr(g, AGNODE, C("height"), C(std::to_string(kBoxHeight / kPointsPerInch)));
  for (size_t i = 0; i < shape.nodes.size(); ++i) {
    out.nodes.push_back(agnode(g, C("n" + std::to_string(i)), 1));
    agxset(out.nodes.back(), width, C(std::to_string(BoxWidth(shape.nodes[i]) / kPointsPerInch)));
  }
  for (size_t e = 0; e < shape.edges.size(); ++e) {
    const GraphShape::Edge& edge = shape.edges[e];
    out.edges.push_back(agedge(g, out.nodes[edge.from], out.nodes[edge.to], C("e" + std::to_string(e)), 1));
  }
  return out;
}

// Reads the boxes and routes back, flipping Graphviz's upward y axis.
GraphLayout ReadLayout(const CGraph& cg) {
  boxf bb = GD_bb(cg.graph.get());
  auto at = [&](pointf p) { return GraphPoint{p.x - bb.LL.x + kMargin, bb.UR.y - p.y + kMargin}; };
  GraphLayout layout;
  layout.width = bb.UR.x - bb.LL.x + 2 * kMargin;
  layout.height = bb.UR.y - bb.LL.y + 2 * kMargin;
  for (Agnode_t* n : cg.nodes) {
    double w = ND_width(n) * kPointsPerInch, h = ND_height(n) * kPointsPerInch;
    GraphPoint centre = at(ND_coord(n));
    layout.boxes.push_back({centre.x - w / 2, centre.y - h / 2, w, h});
  }
  for (Agedge_t* e : cg.edges) {
    // One piece per edge: nothing here asks dot for concentrated or compound edges.
    const bezier& piece = ED_spl(e)->list[0];
    EdgeRoute route;
    for (int i = 0; i < piece.size; ++i) route.bezier.push_back(at(piece.list[i]));
    route.tip = piece.eflag ? at(piece.ep) : route.bezier.back();
    layout.edges.push_back(std::move(route));
  }
  return layout;
}

std::string EdgeSvg(const GraphShape& shape, const GraphShape::Edge& e, const EdgeRoute& route) {
  std::string d = "M" + Num(route.bezier[0].x) + "," + Num(route.bezier[0].y) + "C";
  for (size_t i = 1; i < route.bezier.size(); ++i)
    d += (i == 1 ? "" : " ") + Num(route.bezier[i].x) + "," + Num(route.bezier[i].y);
  // The arrowhead: from the route's end to the tip, as wide as dot left room for.
  const GraphPoint &base = route.bezier.back(), &tip = route.tip;
  double dx = tip.x - base.x, dy = tip.y - base.y, len = std::max(1e-9, std::hypot(dx, dy));
  double nx = -dy / len * kArrowHalfWidth, ny = dx / len * kArrowHalfWidth;
  std::string title = shape.nodes[e.from].name + " → " + shape.nodes[e.to].name + " (" + e.port + ")";
  return "<g class=\"edge\"><title>" + XmlEscape(title) + "</title><path d=\"" + d +
         "\" fill=\"none\" stroke=\"#667\" stroke-width=\"1.3\"/><polygon points=\"" + Num(tip.x) + "," + Num(tip.y) +
         " " + Num(base.x + nx) + "," + Num(base.y + ny) + " " + Num(base.x - nx) + "," + Num(base.y - ny) +
         "\" fill=\"#667\"/></g>\n";
}

std::string NodeSvg(const GraphShape::Node& node, const NodeBox& b) {
  std::string name = XmlEscape(node.name), kind = XmlEscape(node.kind);
  std::string centre = Num(b.x + b.width / 2);
  return "<g class=\"node\"><title>" + name + " (" + kind + ")</title><rect x=\"" + Num(b.x) + "\" y=\"" + Num(b.y) +
         "\" width=\"" + Num(b.width) + "\" height=\"" + Num(b.height) +
         "\" rx=\"5\" fill=\"#eef3fb\" stroke=\"#4a6fa5\"/><text x=\"" + centre + "\" y=\"" + Num(b.y + 17) +
         "\" text-anchor=\"middle\" font-size=\"13\" font-weight=\"bold\">" + name + "</text><text x=\"" + centre +
         "\" y=\"" + Num(b.y + 33) + "\" text-anchor=\"middle\" font-size=\"11\" fill=\"#555\">" + kind +
         "</text></g>\n";
}

std::string SvgOpen(double width, double height) {
  std::string w = Num(width), h = Num(height);
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"graph\" width=\"" + w + "\" height=\"" + h +
         "\" viewBox=\"0 0 " + w + " " + h + "\" font-family=\"sans-serif\">\n";
}

}  // namespace

GraphShape ShapeOf(const Dag& dag) {
  GraphShape shape;
  for (size_t i = 0; i < dag.nodes.size(); ++i) {
    const DagNode& node = dag.nodes[i];
    shape.nodes.push_back({node.name, node.kind->name});
    for (const DagInput& input : node.inputs)
      for (int source : input.sources) shape.edges.push_back({source, static_cast<int>(i), input.port});
  }
  return shape;
}

Result<GraphLayout> LayoutGraph(const GraphShape& shape) {
  if (shape.nodes.empty()) return GraphLayout{};
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  agseterr(AGMAX);  // keep Graphviz's messages for the Status instead of printing them
  GVC_t* gvc = Context();
  CGraph cg = BuildGraph(shape);
  if (gvc == nullptr || gvLayout(gvc, cg.graph.get(), "dot") != 0) {
    const char* why = aglasterr();
    return Status::Internal("Graphviz could not lay out the pipeline" + (why ? ": " + std::string(why) : ""));
  }
  GraphLayout layout = ReadLayout(cg);
  gvFreeLayout(gvc, cg.graph.get());
  return layout;
}

std::string GraphSvg(const GraphShape& shape, const GraphLayout& layout) {
  std::string out = SvgOpen(layout.width, layout.height);
  for (size_t e = 0; e < shape.edges.size(); ++e) out += EdgeSvg(shape, shape.edges[e], layout.edges[e]);
  for (size_t i = 0; i < shape.nodes.size(); ++i) out += NodeSvg(shape.nodes[i], layout.boxes[i]);
  return out + "</svg>\n";
}

std::string GraphSvg(const GraphShape& shape) {
  Result<GraphLayout> layout = LayoutGraph(shape);
  if (layout.ok()) return GraphSvg(shape, *layout);
  return SvgOpen(600, 24) + "<text x=\"4\" y=\"16\" font-size=\"12\">" + XmlEscape(layout.status().ToString()) +
         "</text>\n</svg>\n";
}

}  // namespace seqflow

#include "engine/graph/graph_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "engine/base/xml.h"

namespace seqflow {
namespace {

constexpr double kMargin = 12, kRowGap = 48, kColumnGap = 24, kBoxHeight = 42;
constexpr double kNameCharWidth = 7.8, kKindCharWidth = 6.4, kBoxPadding = 20, kMinBoxWidth = 72;
constexpr double kArrowLength = 8, kArrowHalfWidth = 4;

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

std::vector<int> Layers(const GraphShape& shape) {
  std::vector<int> layer(shape.nodes.size(), 0);
  std::vector<GraphShape::Edge> edges = shape.edges;
  std::sort(edges.begin(), edges.end(), [](const auto& a, const auto& b) { return a.to < b.to; });
  for (const auto& e : edges) layer[e.to] = std::max(layer[e.to], layer[e.from] + 1);
  return layer;
}

double CenterX(const NodeBox& b) { return b.x + b.width / 2; }

// Mean centre of the node's inputs (all in rows above, so placed). Only row 0 has nodes
// without inputs; they keep their topological order.
double Barycenter(const GraphShape& shape, const GraphLayout& layout, int node) {
  double sum = 0, n = 0;
  for (const auto& e : shape.edges)
    if (e.to == node) sum += CenterX(layout.boxes[e.from]), ++n;
  return n > 0 ? sum / n : -1e9 + node;
}

// Places the nodes of one row left to right, centred in `total_width`.
void PlaceRow(const GraphShape& shape, std::vector<int> row, int layer, double total_width, GraphLayout& layout) {
  std::vector<double> key(shape.nodes.size());
  for (int i : row) key[i] = Barycenter(shape, layout, i);
  std::stable_sort(row.begin(), row.end(), [&](int a, int b) { return key[a] < key[b]; });
  double width = -kColumnGap;
  for (int i : row) width += layout.boxes[i].width + kColumnGap;
  double x = kMargin + (total_width - width) / 2;
  for (int i : row) {
    NodeBox& box = layout.boxes[i];
    box.layer = layer;
    box.x = x;
    box.y = kMargin + layer * (kBoxHeight + kRowGap);
    x += box.width + kColumnGap;
  }
}

// Where each edge leaves its source (bottom) and enters its target (top): the edges of one side
// of a box spread evenly along it, ordered by the other end's position, so they do not overlap.
std::vector<std::pair<double, double>> AttachX(const GraphShape& shape, const GraphLayout& layout) {
  std::vector<std::pair<double, double>> at(shape.edges.size());
  for (size_t n = 0; n < shape.nodes.size(); ++n) {
    for (bool outgoing : {true, false}) {
      std::vector<size_t> mine;
      for (size_t e = 0; e < shape.edges.size(); ++e)
        if ((outgoing ? shape.edges[e].from : shape.edges[e].to) == static_cast<int>(n)) mine.push_back(e);
      auto other = [&](size_t e) { return CenterX(layout.boxes[outgoing ? shape.edges[e].to : shape.edges[e].from]); };
      std::stable_sort(mine.begin(), mine.end(), [&](size_t a, size_t b) { return other(a) < other(b); });
      const NodeBox& box = layout.boxes[n];
      for (size_t k = 0; k < mine.size(); ++k) {
        double x = box.x + box.width * static_cast<double>(k + 1) / static_cast<double>(mine.size() + 1);
        (outgoing ? at[mine[k]].first : at[mine[k]].second) = x;
      }
    }
  }
  return at;
}

std::string EdgeSvg(const GraphShape& shape, const GraphShape::Edge& e, double x1, double y1, double x2, double y2) {
  double dx = x2 - x1, dy = y2 - y1, len = std::max(1e-9, std::hypot(dx, dy));
  double ux = dx / len, uy = dy / len;
  double bx = x2 - ux * kArrowLength, by = y2 - uy * kArrowLength;
  std::string title = shape.nodes[e.from].name + " → " + shape.nodes[e.to].name + " (" + e.port + ")";
  return "<g class=\"edge\"><title>" + XmlEscape(title) + "</title><line x1=\"" + Num(x1) + "\" y1=\"" + Num(y1) +
         "\" x2=\"" + Num(bx) + "\" y2=\"" + Num(by) + "\" stroke=\"#667\" stroke-width=\"1.3\"/><polygon points=\"" +
         Num(x2) + "," + Num(y2) + " " + Num(bx - uy * kArrowHalfWidth) + "," + Num(by + ux * kArrowHalfWidth) + " " +
         Num(bx + uy * kArrowHalfWidth) + "," + Num(by - ux * kArrowHalfWidth) + "\" fill=\"#667\"/></g>\n";
}

std::string NodeSvg(const GraphShape::Node& node, const NodeBox& b) {
  std::string name = XmlEscape(node.name), kind = XmlEscape(node.kind);
  return "<g class=\"node\"><title>" + name + " (" + kind + ")</title><rect x=\"" + Num(b.x) + "\" y=\"" + Num(b.y) +
         "\" width=\"" + Num(b.width) + "\" height=\"" + Num(b.height) +
         "\" rx=\"5\" fill=\"#eef3fb\" stroke=\"#4a6fa5\"/><text x=\"" + Num(CenterX(b)) + "\" y=\"" + Num(b.y + 17) +
         "\" text-anchor=\"middle\" font-size=\"13\" font-weight=\"bold\">" + name + "</text><text x=\"" +
         Num(CenterX(b)) + "\" y=\"" + Num(b.y + 33) + "\" text-anchor=\"middle\" font-size=\"11\" fill=\"#555\">" +
         kind + "</text></g>\n";
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

GraphLayout LayoutGraph(const GraphShape& shape) {
  GraphLayout layout;
  std::vector<int> layer = Layers(shape);
  int layers = layer.empty() ? 0 : *std::max_element(layer.begin(), layer.end()) + 1;
  std::vector<std::vector<int>> rows(layers);
  std::vector<double> row_width(layers, -kColumnGap);
  for (size_t i = 0; i < shape.nodes.size(); ++i) {
    layout.boxes.push_back({layer[i], 0, 0, BoxWidth(shape.nodes[i]), kBoxHeight});
    rows[layer[i]].push_back(static_cast<int>(i));
    row_width[layer[i]] += layout.boxes.back().width + kColumnGap;
  }
  double widest = layers == 0 ? 0 : *std::max_element(row_width.begin(), row_width.end());
  for (int l = 0; l < layers; ++l) PlaceRow(shape, rows[l], l, widest, layout);
  layout.width = widest + 2 * kMargin;
  layout.height = layers * (kBoxHeight + kRowGap) - kRowGap + 2 * kMargin;
  return layout;
}

std::string GraphSvg(const GraphShape& shape) {
  GraphLayout layout = LayoutGraph(shape);
  std::string w = Num(layout.width), h = Num(std::max(0.0, layout.height));
  std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"graph\" width=\"" + w + "\" height=\"" + h +
                    "\" viewBox=\"0 0 " + w + " " + h + "\" font-family=\"sans-serif\">\n";
  std::vector<std::pair<double, double>> at = AttachX(shape, layout);
  for (size_t e = 0; e < shape.edges.size(); ++e) {
    const NodeBox &from = layout.boxes[shape.edges[e].from], &to = layout.boxes[shape.edges[e].to];
    out += EdgeSvg(shape, shape.edges[e], at[e].first, from.y + from.height, at[e].second, to.y);
  }
  for (size_t i = 0; i < shape.nodes.size(); ++i) out += NodeSvg(shape.nodes[i], layout.boxes[i]);
  return out + "</svg>\n";
}

}  // namespace seqflow

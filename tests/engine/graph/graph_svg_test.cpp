// The built-in DAG drawing: longest-path layers, boxes of a row apart, every node and edge drawn,
// every text escaped.
#include "engine/graph/graph_svg.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "tests/engine/graph/graph_fixture.h"

namespace seqflow {
namespace {

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// Two sources, a chain on one of them, a node joining both, a long skip edge:
//   a   b
//   |\  |
//   c \ |
//   |  d
//    \ |
//      e        layers: a 0, b 0, c 1, d 1, e 2
GraphShape Diamond() {
  GraphShape g;
  g.nodes = {{"a", "io.read"}, {"b", "io.read"}, {"c", "t.double"}, {"d", "t.pair"}, {"e", "t.sink"}};
  g.edges = {{0, 2, "in"}, {0, 3, "left"}, {1, 3, "right"}, {2, 4, "model"}, {3, 4, "extra"}, {0, 4, "skip"}};
  return g;
}

// Many wide nodes in one row, fanning out of one source.
GraphShape Fan(int n) {
  GraphShape g;
  g.nodes.push_back({"source", "io.read"});
  for (int i = 0; i < n; ++i) {
    g.nodes.push_back({"a_rather_long_node_name_" + std::to_string(i), "decode.something_long"});
    g.edges.push_back({0, i + 1, "in"});
  }
  return g;
}

void ExpectRowsApart(const GraphLayout& layout) {
  for (size_t i = 0; i < layout.boxes.size(); ++i)
    for (size_t j = i + 1; j < layout.boxes.size(); ++j) {
      const NodeBox &a = layout.boxes[i], &b = layout.boxes[j];
      if (a.layer != b.layer) continue;
      EXPECT_EQ(a.y, b.y);
      EXPECT_TRUE(a.x + a.width <= b.x || b.x + b.width <= a.x)
          << "boxes " << i << " [" << a.x << ", " << a.x + a.width << ") and " << j << " [" << b.x << ", "
          << b.x + b.width << ") overlap in layer " << a.layer;
    }
}

void ExpectInsideDrawing(const GraphLayout& layout) {
  for (const NodeBox& b : layout.boxes) {
    EXPECT_GE(b.x, 0);
    EXPECT_GE(b.y, 0);
    EXPECT_LE(b.x + b.width, layout.width);
    EXPECT_LE(b.y + b.height, layout.height);
  }
}

TEST(GraphSvgTest, LongestPathLayers) {
  GraphLayout layout = LayoutGraph(Diamond());
  ASSERT_EQ(layout.boxes.size(), 5u);
  std::vector<int> layers;
  for (const NodeBox& b : layout.boxes) layers.push_back(b.layer);
  EXPECT_EQ(layers, (std::vector<int>{0, 0, 1, 1, 2}));
  // Every edge points down, and rows are stacked in layer order.
  for (const auto& e : Diamond().edges)
    EXPECT_LT(layout.boxes[e.from].y + layout.boxes[e.from].height, layout.boxes[e.to].y);
}

TEST(GraphSvgTest, BoxesOfARowDoNotOverlap) {
  ExpectRowsApart(LayoutGraph(Diamond()));
  GraphLayout fan = LayoutGraph(Fan(12));
  ExpectRowsApart(fan);
  ExpectInsideDrawing(fan);
  ExpectInsideDrawing(LayoutGraph(Diamond()));
}

TEST(GraphSvgTest, BoxFitsTheLongerOfNameAndKind) {
  GraphShape g;
  g.nodes = {{"x", "k"}, {std::string(40, 'n'), "k"}, {"y", std::string(60, 'k')}};
  GraphLayout layout = LayoutGraph(g);
  EXPECT_GE(layout.boxes[0].width, 40);
  EXPECT_GT(layout.boxes[1].width, 40 * 7.0);  // bold 13px name
  EXPECT_GT(layout.boxes[2].width, 60 * 6.0);  // 11px kind
  ExpectRowsApart(layout);
}

TEST(GraphSvgTest, InputsOrderTheRowBelow) {
  // c's input is the right-hand source, d's the left: d is drawn left of c.
  GraphShape g;
  g.nodes = {{"left", "k"}, {"right", "k"}, {"c", "k"}, {"d", "k"}};
  g.edges = {{1, 2, "in"}, {0, 3, "in"}};
  GraphLayout layout = LayoutGraph(g);
  EXPECT_LT(layout.boxes[0].x, layout.boxes[1].x);
  EXPECT_LT(layout.boxes[3].x, layout.boxes[2].x);
}

TEST(GraphSvgTest, EveryNodeAndEdgeDrawn) {
  GraphShape g = Diamond();
  std::string svg = GraphSvg(g);
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u) << svg;
  EXPECT_EQ(Count(svg, "<g class=\"node\">"), g.nodes.size());
  EXPECT_EQ(Count(svg, "<g class=\"edge\">"), g.edges.size());
  EXPECT_EQ(Count(svg, "<rect "), g.nodes.size());
  for (const auto& node : g.nodes) {
    EXPECT_NE(svg.find("<title>" + node.name + " (" + node.kind + ")</title>"), std::string::npos) << node.name;
    EXPECT_NE(svg.find(">" + node.name + "</text>"), std::string::npos) << node.name;
  }
  EXPECT_NE(svg.find("<title>a → e (skip)</title>"), std::string::npos);
  EXPECT_EQ(svg.find(" id="), std::string::npos);  // several drawings share one page
  EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
}

TEST(GraphSvgTest, EscapesNamesKindsAndPorts) {
  GraphShape g;
  g.nodes = {{"a<b>", "k&\"q\""}, {"c'd", "k"}};
  g.edges = {{0, 1, "p<1>"}};
  std::string svg = GraphSvg(g);
  EXPECT_NE(svg.find(">a&lt;b&gt;</text>"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">k&amp;&quot;q&quot;</text>"), std::string::npos);
  EXPECT_NE(svg.find(">c&#39;d</text>"), std::string::npos);
  EXPECT_NE(svg.find("(p&lt;1&gt;)</title>"), std::string::npos);
  for (const char* raw : {"a<b>", "k&\"", "c'd", "p<1>"}) EXPECT_EQ(svg.find(raw), std::string::npos) << raw;
}

TEST(GraphSvgTest, EmptyShapeIsAnEmptyDrawing) {
  GraphLayout layout = LayoutGraph(GraphShape{});
  EXPECT_TRUE(layout.boxes.empty());
  std::string svg = GraphSvg(GraphShape{});
  EXPECT_NE(svg.find("height=\"0.0\""), std::string::npos) << svg;
  EXPECT_EQ(Count(svg, "<g "), 0u);
}

class ShapeOfTest : public testutil::GraphTest {};

TEST_F(ShapeOfTest, NodesKindsAndEdgesOfTheDag) {
  Result<Dag> dag = Build(
      "nodes:\n"
      "  both: {kind: t.pair, in: {left: src, right: twice}, iterations: 1}\n"
      "  src: {kind: t.source, path: data.txt}\n"
      "  twice: {kind: t.double, in: [src]}\n");
  ASSERT_TRUE(dag.ok()) << dag.status().ToString();
  GraphShape shape = ShapeOf(*dag);
  ASSERT_EQ(shape.nodes.size(), 3u);
  std::vector<std::string> names;
  for (const auto& n : shape.nodes) names.push_back(n.name);
  EXPECT_EQ(names, (std::vector<std::string>{"src", "twice", "both"}));
  EXPECT_EQ(shape.nodes[2].kind, "t.pair");
  ASSERT_EQ(shape.edges.size(), 3u);
  for (const auto& e : shape.edges) EXPECT_LT(e.from, e.to);
  auto has = [&](int from, int to, const std::string& port) {
    return std::any_of(shape.edges.begin(), shape.edges.end(),
                       [&](const auto& e) { return e.from == from && e.to == to && e.port == port; });
  };
  EXPECT_TRUE(has(0, 1, "in"));
  EXPECT_TRUE(has(0, 2, "left"));
  EXPECT_TRUE(has(1, 2, "right"));
  std::string svg = GraphSvg(shape);
  EXPECT_EQ(Count(svg, "<g class=\"node\">"), 3u);
}

}  // namespace
}  // namespace seqflow

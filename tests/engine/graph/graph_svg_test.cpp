// The DAG drawing: Graphviz's dot layout read back into boxes and routes — boxes apart and sized
// for their text, edges pointing down and never through a box — and the SVG written from it:
// well-formed, every node and edge drawn, every text escaped.
#include "engine/graph/graph_svg.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "tests/engine/graph/graph_fixture.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace graph_svg_test {

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
//      e        and a -> e
GraphShape Diamond() {
  GraphShape g;
  g.nodes = {{"a", "io.read"}, {"b", "io.read"}, {"c", "t.double"}, {"d", "t.pair"}, {"e", "t.sink"}};
  g.edges = {{0, 2, "in"}, {0, 3, "left"}, {1, 3, "right"}, {2, 4, "model"}, {3, 4, "extra"}, {0, 4, "skip"}};
  return g;
}

// pipelines/conll2000_hmm.yaml, whose report drew `test -> score` through the boxes of the
// home-made layout: the test corpus feeds both the decoder (two ranks down) and the scorer.
GraphShape Conll2000Hmm() {
  GraphShape g;
  g.nodes = {{"train", "read.conll"},   {"test", "read.conll"},          {"vocab", "features.vocab"},
             {"hmm", "hmm.supervised"}, {"predicted", "decode.viterbi"}, {"score", "eval.segments"}};
  g.edges = {{0, 2, "in"},   {0, 3, "data"},      {2, 3, "vocab"}, {3, 4, "model"},
             {1, 4, "data"}, {4, 5, "predicted"}, {1, 5, "gold"}};
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

GraphLayout Layout(const GraphShape& shape) {
  Result<GraphLayout> layout = LayoutGraph(shape);
  EXPECT_OK(layout.status());
  return layout.ok() ? *layout : GraphLayout{};
}

// Strictly inside `b` shrunk by `inset` pixels on every side (a negative inset grows it).
bool Inside(const GraphPoint& p, const NodeBox& b, double inset) {
  return p.x > b.x + inset && p.x < b.x + b.width - inset && p.y > b.y + inset && p.y < b.y + b.height - inset;
}

// Points along an edge: its Bézier pieces and the arrowhead's axis, finely sampled.
std::vector<GraphPoint> Trace(const EdgeRoute& route) {
  std::vector<GraphPoint> out;
  constexpr int kSteps = 64;
  for (size_t i = 0; i + 3 < route.bezier.size(); i += 3) {
    const GraphPoint* p = &route.bezier[i];
    for (int k = 0; k <= kSteps; ++k) {
      double t = static_cast<double>(k) / kSteps, u = 1 - t;
      double a = u * u * u, b = 3 * u * u * t, c = 3 * u * t * t, d = t * t * t;
      out.push_back(
          {a * p[0].x + b * p[1].x + c * p[2].x + d * p[3].x, a * p[0].y + b * p[1].y + c * p[2].y + d * p[3].y});
    }
  }
  const GraphPoint &base = route.bezier.back(), &tip = route.tip;
  for (int k = 0; k <= kSteps; ++k) {
    double t = static_cast<double>(k) / kSteps;
    out.push_back({base.x + t * (tip.x - base.x), base.y + t * (tip.y - base.y)});
  }
  return out;
}

void ExpectBoxesApart(const GraphLayout& layout) {
  for (size_t i = 0; i < layout.boxes.size(); ++i)
    for (size_t j = i + 1; j < layout.boxes.size(); ++j) {
      const NodeBox &a = layout.boxes[i], &b = layout.boxes[j];
      bool apart = a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y;
      EXPECT_TRUE(apart) << "boxes " << i << " and " << j << " overlap";
    }
}

void ExpectInsideDrawing(const GraphLayout& layout) {
  for (const NodeBox& b : layout.boxes) {
    EXPECT_GE(b.x, 0);
    EXPECT_GE(b.y, 0);
    EXPECT_LE(b.x + b.width, layout.width);
    EXPECT_LE(b.y + b.height, layout.height);
  }
  for (const EdgeRoute& route : layout.edges)
    for (const GraphPoint& p : Trace(route)) {
      EXPECT_TRUE(p.x >= 0 && p.x <= layout.width && p.y >= 0 && p.y <= layout.height) << p.x << ", " << p.y;
    }
}

// Every edge leaves its source's box, reaches its target's, and enters no box on the way (its
// own two included: it is drawn from border to border). One failure per edge and box crossed.
void ExpectRoutesClearOfBoxes(const GraphShape& shape, const GraphLayout& layout) {
  ASSERT_EQ(layout.edges.size(), shape.edges.size());
  for (size_t e = 0; e < shape.edges.size(); ++e) {
    const GraphShape::Edge& edge = shape.edges[e];
    const EdgeRoute& route = layout.edges[e];
    ASSERT_GE(route.bezier.size(), 4u);
    EXPECT_EQ((route.bezier.size() - 1) % 3, 0u);
    std::string name = shape.nodes[edge.from].name + " -> " + shape.nodes[edge.to].name;
    EXPECT_TRUE(Inside(route.bezier.front(), layout.boxes[edge.from], -2)) << name << " starts away from its source";
    EXPECT_TRUE(Inside(route.tip, layout.boxes[edge.to], -2)) << name << " ends away from its target";
    std::vector<GraphPoint> trace = Trace(route);
    for (size_t n = 0; n < layout.boxes.size(); ++n) {
      auto in =
          std::find_if(trace.begin(), trace.end(), [&](const GraphPoint& p) { return Inside(p, layout.boxes[n], 1); });
      EXPECT_TRUE(in == trace.end()) << name << " crosses " << shape.nodes[n].name << " at " << in->x << ", " << in->y;
    }
  }
}

// Well-formed XML, as far as our writer's output goes: tags nest and close, attribute values are
// quoted, and '<' and '&' appear in text only as markup and entities. Stops at the first fault.
void Fault(const std::string& what, size_t at) { ADD_FAILURE() << what << " at " << at; }

void ExpectWellFormed(const std::string& xml) {
  std::vector<std::string> open;
  for (size_t at = 0; at < xml.size();) {
    if (xml[at] == '&') {
      std::string entity = xml.substr(at, xml.find(';', at) + 1 - at);
      bool known = entity == "&amp;" || entity == "&lt;" || entity == "&gt;" || entity == "&quot;" || entity == "&#39;";
      if (!known) return Fault("bad entity " + entity.substr(0, 8), at);
      at += entity.size();
      continue;
    }
    if (xml[at] == '>') return Fault("stray '>'", at);
    if (xml[at] != '<') {
      ++at;
      continue;
    }
    size_t end = at + 1;
    for (char quote = 0; end < xml.size() && (quote != 0 || xml[end] != '>'); ++end) {
      if (quote == 0 && xml[end] == '<') return Fault("'<' inside a tag", end);
      if (quote == 0 && (xml[end] == '"' || xml[end] == '\''))
        quote = xml[end];
      else if (xml[end] == quote)
        quote = 0;
    }
    if (end >= xml.size()) return Fault("unterminated tag", at);
    std::string tag = xml.substr(at + 1, end - at - 1);
    bool closing = tag[0] == '/';
    std::string name = tag.substr(closing ? 1 : 0, tag.find_first_of(" />", 1) - (closing ? 1 : 0));
    if (closing && (open.empty() || open.back() != name)) return Fault("</" + name + "> closes nothing", at);
    if (closing)
      open.pop_back();
    else if (tag.back() != '/')
      open.push_back(name);
    at = end + 1;
  }
  EXPECT_TRUE(open.empty()) << open.size() << " unclosed, first <" << (open.empty() ? "" : open[0]) << ">";
}

TEST(GraphSvgTest, EdgesPointDown) {
  for (const GraphShape& shape : {Diamond(), Conll2000Hmm()}) {
    GraphLayout layout = Layout(shape);
    ASSERT_EQ(layout.boxes.size(), shape.nodes.size());
    for (const auto& e : shape.edges)
      EXPECT_LT(layout.boxes[e.from].y + layout.boxes[e.from].height, layout.boxes[e.to].y)
          << shape.nodes[e.from].name << " -> " << shape.nodes[e.to].name;
  }
}

TEST(GraphSvgTest, BoxesDoNotOverlapAndFitTheDrawing) {
  for (const GraphShape& shape : {Diamond(), Conll2000Hmm(), Fan(12)}) {
    GraphLayout layout = Layout(shape);
    ExpectBoxesApart(layout);
    ExpectInsideDrawing(layout);
  }
}

TEST(GraphSvgTest, NoEdgeCrossesABox) {
  for (const GraphShape& shape : {Diamond(), Conll2000Hmm(), Fan(6)}) ExpectRoutesClearOfBoxes(shape, Layout(shape));
}

TEST(GraphSvgTest, TheRouteCheckSeesAnEdgeThroughABox) {
  // a, b, c stacked; a -> c drawn straight down through b.
  GraphShape g;
  g.nodes = {{"a", "k"}, {"b", "k"}, {"c", "k"}};
  g.edges = {{0, 1, "in"}, {1, 2, "in"}, {0, 2, "skip"}};
  GraphLayout layout;
  layout.boxes = {{0, 0, 100, 40}, {0, 80, 100, 40}, {0, 160, 100, 40}};
  auto straight = [](double x, double y0, double y1) {
    return EdgeRoute{{{x, y0}, {x, y0}, {x, y1 - 10}, {x, y1 - 10}}, {x, y1}};
  };
  layout.edges = {straight(30, 40, 80), straight(30, 120, 160), straight(70, 40, 160)};
  layout.width = 100, layout.height = 200;
  EXPECT_NONFATAL_FAILURE(ExpectRoutesClearOfBoxes(g, layout), "a -> c crosses b");
}

TEST(GraphSvgTest, BoxFitsTheLongerOfNameAndKind) {
  GraphShape g;
  g.nodes = {{"x", "k"}, {std::string(40, 'n'), "k"}, {"y", std::string(60, 'k')}};
  GraphLayout layout = Layout(g);
  ASSERT_EQ(layout.boxes.size(), 3u);
  EXPECT_GE(layout.boxes[0].width, 40);
  EXPECT_GT(layout.boxes[1].width, 40 * 7.0);  // bold 13px name
  EXPECT_GT(layout.boxes[2].width, 60 * 6.0);  // 11px kind
  ExpectBoxesApart(layout);
}

TEST(GraphSvgTest, InputsOrderTheRowBelow) {
  // c's input is the right-hand source, d's the left: d is drawn left of c, so nothing crosses.
  GraphShape g;
  g.nodes = {{"left", "k"}, {"right", "k"}, {"c", "k"}, {"d", "k"}};
  g.edges = {{1, 2, "in"}, {0, 3, "in"}};
  GraphLayout layout = Layout(g);
  ASSERT_EQ(layout.boxes.size(), 4u);
  bool left_first = layout.boxes[0].x < layout.boxes[1].x;
  EXPECT_EQ(layout.boxes[3].x < layout.boxes[2].x, left_first);
}

TEST(GraphSvgTest, EveryNodeAndEdgeDrawn) {
  GraphShape g = Conll2000Hmm();
  std::string svg = GraphSvg(g);
  ExpectWellFormed(svg);
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u) << svg;
  EXPECT_EQ(Count(svg, "<g class=\"node\">"), g.nodes.size());
  EXPECT_EQ(Count(svg, "<g class=\"edge\">"), g.edges.size());
  EXPECT_EQ(Count(svg, "<rect "), g.nodes.size());
  EXPECT_EQ(Count(svg, "<path d=\"M"), g.edges.size());
  EXPECT_EQ(Count(svg, "<polygon "), g.edges.size());
  for (const auto& node : g.nodes) {
    EXPECT_NE(svg.find("<title>" + node.name + " (" + node.kind + ")</title>"), std::string::npos) << node.name;
    EXPECT_NE(svg.find(">" + node.name + "</text>"), std::string::npos) << node.name;
    EXPECT_NE(svg.find(">" + node.kind + "</text>"), std::string::npos) << node.kind;
  }
  EXPECT_NE(svg.find("<title>test → score (gold)</title>"), std::string::npos);
  EXPECT_EQ(svg.find(" id="), std::string::npos);  // several drawings share one page
  EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
}

TEST(GraphSvgTest, TwoEdgesBetweenOnePairAreBothDrawn) {
  GraphShape g;
  g.nodes = {{"corpus", "read.conll"}, {"score", "eval.segments"}};
  g.edges = {{0, 1, "predicted"}, {0, 1, "gold"}};
  GraphLayout layout = Layout(g);
  ASSERT_EQ(layout.edges.size(), 2u);
  EXPECT_NE(layout.edges[0].bezier[1].x, layout.edges[1].bezier[1].x);  // side by side, not on top
  std::string svg = GraphSvg(g, layout);
  EXPECT_NE(svg.find("(predicted)</title>"), std::string::npos);
  EXPECT_NE(svg.find("(gold)</title>"), std::string::npos);
}

TEST(GraphSvgTest, EscapesNamesKindsAndPorts) {
  GraphShape g;
  g.nodes = {{"a<b>", "k&\"q\""}, {"c'd", "k"}};
  g.edges = {{0, 1, "p<1>"}};
  std::string svg = GraphSvg(g);
  ExpectWellFormed(svg);
  EXPECT_NE(svg.find(">a&lt;b&gt;</text>"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">k&amp;&quot;q&quot;</text>"), std::string::npos);
  EXPECT_NE(svg.find(">c&#39;d</text>"), std::string::npos);
  EXPECT_NE(svg.find("(p&lt;1&gt;)</title>"), std::string::npos);
  for (const char* raw : {"a<b>", "k&\"", "c'd", "p<1>"}) EXPECT_EQ(svg.find(raw), std::string::npos) << raw;
}

TEST(GraphSvgTest, TheXmlCheckSeesMisnestingAndRawAmpersands) {
  ExpectWellFormed("<svg a=\"x>y\"><g/><t>&lt;&amp;</t></svg>");
  EXPECT_NONFATAL_FAILURE(ExpectWellFormed("<svg><g></svg>"), "closes nothing");
  EXPECT_NONFATAL_FAILURE(ExpectWellFormed("<svg><g>"), "2 unclosed");
  EXPECT_NONFATAL_FAILURE(ExpectWellFormed("<svg>a & b</svg>"), "bad entity");
}

TEST(GraphSvgTest, EmptyShapeIsAnEmptyDrawing) {
  GraphLayout layout = Layout(GraphShape{});
  EXPECT_TRUE(layout.boxes.empty());
  std::string svg = GraphSvg(GraphShape{});
  ExpectWellFormed(svg);
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

}  // namespace graph_svg_test
}  // namespace seqflow

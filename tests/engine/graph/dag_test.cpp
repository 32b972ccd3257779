// Valid pipelines: binding, topological order, cache keys and dot.
#include <filesystem>

#include "engine/base/hash.h"
#include "engine/base/numerics.h"
#include "tests/engine/graph/graph_fixture.h"

namespace seqflow::testutil {
namespace dag_test {

class DagTest : public GraphTest {};

// Written consumers first, so the order must come from the edges.
constexpr char kDiamond[] =
    "nodes:\n"
    "  score: {kind: t.sink, in: {model: merged}}\n"
    "  merged: {kind: t.merge, in: [x, y]}\n"
    "  y: {kind: t.double, in: [src], factor: 3}\n"
    "  src: {kind: t.source, path: data.txt}\n"
    "  x: {kind: t.double, in: [src]}\n";

std::vector<std::string> Names(const Dag& dag) {
  std::vector<std::string> names;
  for (const auto& n : dag.nodes) names.push_back(n.name);
  return names;
}

TEST_F(DagTest, TopologicalOrderIsStableInFileOrder) {
  auto dag = Build(kDiamond);
  ASSERT_OK(dag);
  EXPECT_EQ(Names(*dag), (std::vector<std::string>{"src", "y", "x", "merged", "score"}));
  const DagNode& merged = dag->nodes[dag->Find("merged")];
  ASSERT_EQ(merged.inputs.size(), 1u);
  EXPECT_EQ(merged.inputs[0].port, "items");
  EXPECT_EQ(merged.inputs[0].sources, (std::vector<int>{dag->Find("x"), dag->Find("y")}));
  EXPECT_EQ(dag->Consumers(dag->Find("src")), (std::vector<int>{1, 2}));
  EXPECT_EQ(dag->Consumers(dag->Find("score")), std::vector<int>{});
  EXPECT_EQ(dag->Find("absent"), -1);
}

TEST_F(DagTest, ParametersAreParsedWithDefaultsAndAbsolutePaths) {
  auto dag = Build(std::string(kDiamond) + "  p: {kind: t.pair, in: {left: x, right: y}, iterations: 5, "
                                           "smoothing: {transition: 0.25}}\n");
  ASSERT_OK(dag);
  const DagNode& src = dag->nodes[dag->Find("src")];
  EXPECT_EQ(src.kind->name, "t.source");
  EXPECT_EQ(src.params.GetString("path"), dir_ + "/data.txt");
  EXPECT_EQ(src.params.GetString("encoding"), "runs");
  EXPECT_EQ(src.loc.ToString(), dir_ + "/p.yaml:5:3");
  EXPECT_EQ(dag->nodes[dag->Find("x")].params.GetDouble("factor"), 1.0);
  const DagNode& p = dag->nodes[dag->Find("p")];
  EXPECT_EQ(p.params.GetDouble("smoothing.transition"), 0.25);
  EXPECT_EQ(p.params.GetInt("iterations"), 5);
  ASSERT_EQ(p.inputs.size(), 2u);  // the optional 'extra' port is left out
  EXPECT_EQ(p.inputs[1].port, "right");
  EXPECT_EQ(dag->nodes[dag->Find("merged")].params.GetStrings("freeze"), std::vector<std::string>{});
}

TEST_F(DagTest, KeyPartsExplainTheKey) {
  auto dag = Build(kDiamond);
  ASSERT_OK(dag);
  const DagNode& src = dag->nodes[dag->Find("src")];
  EXPECT_EQ(src.key_parts, (std::map<std::string, std::string>{{"numerics", std::string(NumericsId())},
                                                                {"kind", "t.source@1"},
                                                                {"param:encoding", "runs"},
                                                                {"file:path", HashHex("hello\n")}}));
  const DagNode& y = dag->nodes[dag->Find("y")];
  EXPECT_EQ(y.key_parts, (std::map<std::string, std::string>{{"numerics", std::string(NumericsId())},
                                                              {"kind", "t.double@1"},
                                                              {"param:factor", "3"},
                                                              {"input:in", src.key}}));
  const DagNode& merged = dag->nodes[dag->Find("merged")];
  EXPECT_EQ(merged.key_parts.at("input:items"), dag->nodes[dag->Find("x")].key + "," + y.key);
  EXPECT_EQ(merged.key_parts.at("kind"), "t.merge@2");
  EXPECT_EQ(src.key.size(), 32u);
}

TEST_F(DagTest, SameSpecGivesSameKeysAcrossHashers) {
  auto first = Build(kDiamond);
  ASSERT_OK(first);
  FileHasher fresh(Env::Default());
  auto spec = Parse(kDiamond);
  ASSERT_OK(spec);
  auto second = BuildDag(*spec, registry_, fresh);
  ASSERT_OK(second);
  EXPECT_EQ(Keys(*first), Keys(*second));
  std::set<std::string> distinct;
  for (const auto& [name, key] : Keys(*first)) distinct.insert(key);
  EXPECT_EQ(distinct.size(), 5u);
}

// Which nodes' keys differ between two builds.
std::vector<std::string> Changed(const std::map<std::string, std::string>& a,
                                 const std::map<std::string, std::string>& b) {
  std::vector<std::string> changed;
  for (const auto& [name, key] : a)
    if (b.at(name) != key) changed.push_back(name);
  return changed;
}

TEST_F(DagTest, ChangingAParameterChangesThatNodeAndItsDescendants) {
  auto base = Build(kDiamond);
  auto changed = Build(kDiamond, {"x.factor=2"});
  ASSERT_OK(base);
  ASSERT_OK(changed);
  EXPECT_EQ(Changed(Keys(*base), Keys(*changed)), (std::vector<std::string>{"merged", "score", "x"}));
  auto same_value = Build(kDiamond, {"x.factor=1.0"});  // canonical value equals the default
  ASSERT_OK(same_value);
  EXPECT_EQ(Keys(*base), Keys(*same_value));
}

TEST_F(DagTest, FileContentChangesTheReadersKey) {
  auto before = Build(kDiamond);
  ASSERT_OK(before);
  Write("data.txt", "hellp\n");  // same size
  std::filesystem::last_write_time(dir_ + "/data.txt",
                                   std::filesystem::last_write_time(dir_ + "/data.txt") + std::chrono::seconds(5));
  auto after = Build(kDiamond);
  ASSERT_OK(after);
  EXPECT_EQ(Changed(Keys(*before), Keys(*after)), (std::vector<std::string>{"merged", "score", "src", "x", "y"}));
}

TEST_F(DagTest, TouchingAFileWithoutChangingItKeepsTheKeys) {
  auto before = Build(kDiamond);
  ASSERT_OK(before);
  std::filesystem::last_write_time(dir_ + "/data.txt",
                                   std::filesystem::last_write_time(dir_ + "/data.txt") + std::chrono::seconds(5));
  auto after = Build(kDiamond);
  ASSERT_OK(after);
  EXPECT_EQ(Keys(*before), Keys(*after));
}

TEST_F(DagTest, KeysDependOnFileBytesNotOnPathsOrNodeNames) {
  auto before = Build(kDiamond);
  ASSERT_OK(before);
  Write("moved/copy.txt", "hello\n");
  auto moved = Build(
      "nodes:\n"
      "  reader: {kind: t.source, path: moved/copy.txt}\n"
      "  scaled: {kind: t.double, in: [reader], factor: 3}\n");
  ASSERT_OK(moved);
  EXPECT_EQ(moved->nodes[0].key, before->nodes[before->Find("src")].key);
  EXPECT_EQ(moved->nodes[1].key, before->nodes[before->Find("y")].key);
}

TEST_F(DagTest, DotHasEveryNodeAndEdge) {
  auto dag = Build(kDiamond);
  ASSERT_OK(dag);
  std::string dot = ToDot(*dag, "demo \"x\"");
  EXPECT_EQ(dot,
            "digraph \"demo \\\"x\\\"\" {\n"
            "  node [shape=box];\n"
            "  \"src\" [label=\"src\\nt.source\"];\n"
            "  \"y\" [label=\"y\\nt.double\"];\n"
            "  \"x\" [label=\"x\\nt.double\"];\n"
            "  \"merged\" [label=\"merged\\nt.merge\"];\n"
            "  \"score\" [label=\"score\\nt.sink\"];\n"
            "  \"src\" -> \"y\" [label=\"in\"];\n"
            "  \"src\" -> \"x\" [label=\"in\"];\n"
            "  \"x\" -> \"merged\" [label=\"items\"];\n"
            "  \"y\" -> \"merged\" [label=\"items\"];\n"
            "  \"merged\" -> \"score\" [label=\"model\"];\n"
            "}\n");
}

}  // namespace dag_test
}  // namespace seqflow::testutil

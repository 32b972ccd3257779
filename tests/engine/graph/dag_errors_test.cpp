// Pipelines that parse but do not validate: each error at its exact place, with did-you-mean.
#include <filesystem>
#include <memory>

#include "tests/engine/graph/graph_fixture.h"

namespace seqflow::testutil {
namespace dag_errors_test {

class DagErrorTest : public GraphTest {};

constexpr char kSource[] = "nodes:\n  src: {kind: t.source, path: data.txt}\n";

TEST_F(DagErrorTest, UnknownKindSuggestsNearest) {
  EXPECT_TRUE(FailsAt(Build(std::string(kSource) + "  d: {kind: t.doubel, in: [src]}\n"), "p.yaml", 3, 13,
                      "unknown kind 't.doubel' — did you mean 't.double'? (node 'd')"));
}

TEST_F(DagErrorTest, UnknownKindWithoutNearName) {
  EXPECT_TRUE(FailsAt(Build(std::string(kSource) + "  d: {kind: zzz.q, in: [src]}\n"), "p.yaml", 3, 13,
                      "unknown kind 'zzz.q'; `seqflow kinds` lists the kinds (node 'd')"));
}

TEST_F(DagErrorTest, UnknownParameterSuggestsNearest) {
  EXPECT_TRUE(FailsAt(Build(std::string(kSource) + "  d: {kind: t.double, in: [src], facter: 2}\n"), "p.yaml", 3, 42,
                      "unknown parameter 'facter' of node 'd' (t.double) — did you mean 'factor'?"));
}

TEST_F(DagErrorTest, UnknownParameterListsTheParameters) {
  EXPECT_TRUE(FailsAt(Build(std::string(kSource) + "  d: {kind: t.double, in: [src], zzzzzz: 2}\n"), "p.yaml", 3, 42,
                      "unknown parameter 'zzzzzz' of node 'd' (t.double); its parameters are factor"));
}

TEST_F(DagErrorTest, ParameterOfTheWrongType) {
  EXPECT_TRUE(FailsAt(Build(std::string(kSource) + "  d: {kind: t.double, in: [src], factor: fast}\n"), "p.yaml", 3,
                      42, "parameter 'factor' expects number, got 'fast'"));
}

TEST_F(DagErrorTest, ParameterFailingItsCheck) {
  EXPECT_TRUE(FailsAt(Build(std::string(kSource) + "  d: {kind: t.double, in: [src], factor: -1}\n"), "p.yaml", 3,
                      42, "parameter 'factor' must be > 0, got -1"));
}

TEST_F(DagErrorTest, ParameterOutsideItsChoices) {
  EXPECT_TRUE(FailsAt(Build("nodes:\n  src: {kind: t.source, path: data.txt, encoding: bio}\n"), "p.yaml", 2, 51,
                      "parameter 'encoding' does not accept 'bio'; choose one of: runs, iob"));
}

TEST_F(DagErrorTest, BadValueFromSetIsLocatedAtSet) {
  EXPECT_TRUE(FailsAt(Build(std::string(kSource) + "  d: {kind: t.double, in: [src]}\n", {"d.factor=zero"}), "--set",
                      0, 0, "parameter 'factor' expects number, got 'zero'"));
}

TEST_F(DagErrorTest, MissingRequiredParameter) {
  EXPECT_TRUE(FailsAt(Build(std::string(kSource) + "  p: {kind: t.pair, in: {left: src, right: src}}\n"), "p.yaml", 3,
                      3,
                      "node 'p' (t.pair) is missing required parameter 'iterations' (int: EM iterations); add "
                      "iterations: VALUE"));
}

TEST_F(DagErrorTest, MissingFile) {
  EXPECT_TRUE(FailsAt(Build("nodes:\n  src: {kind: t.source, path: nope.txt}\n"), "p.yaml", 2, 31,
                      "cannot read file '" + dir_ + "/nope.txt': No such file or directory"));
}

TEST_F(DagErrorTest, PathThatIsAFolder) {
  std::filesystem::create_directories(dir_ + "/sub");
  EXPECT_TRUE(FailsAt(Build("nodes:\n  src: {kind: t.source, path: sub}\n"), "p.yaml", 2, 31,
                      "cannot read file '" + dir_ + "/sub': Is a directory"));
}

TEST_F(DagErrorTest, UnknownPortSuggestsNearest) {
  EXPECT_TRUE(FailsAt(Build(std::string(kSource) + "  p: {kind: t.pair, in: {left: src, rigth: src}, iterations: 1}\n"),
                      "p.yaml", 3, 44, "unknown port 'rigth' of node 'p' (t.pair) — did you mean 'right'?"));
}

TEST_F(DagErrorTest, UnknownPortListsThePorts) {
  EXPECT_TRUE(FailsAt(Build(std::string(kSource) + "  d: {kind: t.double, in: {zzzzzz: src}}\n"), "p.yaml", 3, 36,
                      "unknown port 'zzzzzz' of node 'd' (t.double); its ports are in"));
}

TEST_F(DagErrorTest, UnknownUpstreamNodeSuggestsNearest) {
  EXPECT_TRUE(FailsAt(Build(std::string(kSource) + "  d: {kind: t.double, in: [srd]}\n"), "p.yaml", 3, 28,
                      "unknown node 'srd' in the inputs of 'd' — did you mean 'src'?"));
}

TEST_F(DagErrorTest, PortFedTheWrongArtifactType) {
  EXPECT_TRUE(FailsAt(Build(std::string(kSource) + "  s: {kind: t.sink, in: {model: src}}\n"), "p.yaml", 3, 33,
                      "port 'model' of node 's' (t.sink) expects B, node 'src' (t.source) gives A"));
}

// C implements the interface I (declared where C is registered), so a port typed I takes it.
struct FakeC final : Artifact {
  static constexpr std::string_view kType = "C";
  static constexpr uint32_t kVersion = 1;
  std::string_view type() const override { return kType; }
  uint32_t version() const override { return kVersion; }
  void Save(ByteWriter&) const override {}
  static std::shared_ptr<const FakeC> Load(ByteReader&) { return std::make_shared<FakeC>(); }
};

TEST_F(DagErrorTest, InterfacePortTakesItsImplementersOnly) {
  registry_.AddArtifactType<FakeC>({"I"});
  registry_.AddKind({"t.c", "1", "", "C", {}, {}, nullptr});
  registry_.AddKind({"t.use", "1", "", "B", {Port("model", "I")}, {}, nullptr});
  EXPECT_TRUE(Build(std::string(kSource) + "  c: {kind: t.c}\n  u: {kind: t.use, in: {model: c}}\n").ok());
  EXPECT_TRUE(FailsAt(Build(std::string(kSource) + "  u: {kind: t.use, in: {model: src}}\n"), "p.yaml", 3, 32,
                      "port 'model' of node 'u' (t.use) expects I (C), node 'src' (t.source) gives A"));
}

TEST_F(DagErrorTest, ListFormOnAKindWithSeveralPorts) {
  EXPECT_TRUE(FailsAt(Build(std::string(kSource) + "  p: {kind: t.pair, in: [src, src], iterations: 1}\n"), "p.yaml", 3,
                      26, "node 'p' (t.pair) has ports left, right, extra; name them: in: {left: NODE, ...}"));
}

TEST_F(DagErrorTest, ListFormOnAKindWithoutPorts) {
  EXPECT_TRUE(FailsAt(Build(std::string(kSource) + "  again: {kind: t.source, path: data.txt, in: [src]}\n"), "p.yaml",
                      3, 48, "node 'again' (t.source) takes no inputs; remove 'in'"));
}

TEST_F(DagErrorTest, TwoSourcesOnASinglePort) {
  EXPECT_TRUE(FailsAt(Build(std::string(kSource) + "  src2: {kind: t.source, path: data.txt}\n" +
                            "  d: {kind: t.double, in: {in: [src, src2]}}\n"),
                      "p.yaml", 4, 38,
                      "port 'in' of node 'd' (t.double) takes one input, got more than one ('src', 'src2'); it is not "
                      "a list port"));
}

TEST_F(DagErrorTest, MissingRequiredPort) {
  EXPECT_TRUE(FailsAt(Build(std::string(kSource) + "  p: {kind: t.pair, in: {left: src}, iterations: 1}\n"), "p.yaml", 3,
                      3, "node 'p' (t.pair) is missing input port 'right' (A); add in: {right: NODE}"));
}

TEST_F(DagErrorTest, CycleIsListedFromItsFirstNode) {
  EXPECT_TRUE(FailsAt(Build(std::string(kSource) +
                            "  after: {kind: t.double, in: [c]}\n"
                            "  a: {kind: t.double, in: {in: c}}\n"
                            "  b: {kind: t.double, in: [a]}\n"
                            "  c: {kind: t.double, in: [b]}\n"),
                      "p.yaml", 4, 3, "the inputs form a cycle: a -> b -> c -> a; a node cannot depend on its own output"));
}

TEST_F(DagErrorTest, NodeFeedingItself) {
  EXPECT_TRUE(FailsAt(Build("nodes:\n  a: {kind: t.double, in: [a]}\n"), "p.yaml", 2, 3,
                      "the inputs form a cycle: a -> a; a node cannot depend on its own output"));
}

TEST_F(DagErrorTest, AblationValueIsValidatedAtItsPlace) {
  auto spec = Parse(std::string(kSource) +
                    "  d: {kind: t.double, in: [src]}\n"
                    "ablations:\n"
                    "  kinds: {d.kind: [t.double, t.doubel]}\n");
  ASSERT_OK(spec);
  auto runs = ExpandAblations(*spec, "kinds");
  ASSERT_OK(runs);
  ASSERT_EQ(runs->size(), 2u);
  ASSERT_OK(BuildDag((*runs)[0].spec, registry_, hasher_));
  EXPECT_TRUE(FailsAt(BuildDag((*runs)[1].spec, registry_, hasher_), "p.yaml", 5, 30,
                      "unknown kind 't.doubel' — did you mean 't.double'? (node 'd')"));
}

}  // namespace dag_errors_test
}  // namespace seqflow::testutil

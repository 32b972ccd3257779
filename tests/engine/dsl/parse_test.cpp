// Well-formed pipelines: nodes, inputs, parameters, vars, environment, --set, includes, anchors.
#include "tests/engine/dsl/pipeline_fixture.h"

namespace seqflow::testutil {
namespace parse_test {

class DslParseTest : public PipelineTest {};

TEST_F(DslParseTest, NodesInputsAndParametersKeepTheirTextAndPlace) {
  auto r = Parse(
      "name: demo\n"
      "nodes:\n"
      "  src: {kind: t.source, path: data.txt, rate: 0.10, code: \"007\"}\n"
      "  vocab: {kind: t.merge, in: [src, src]}\n"
      "  pair:\n"
      "    kind: t.pair\n"
      "    in: {left: src, right: [vocab]}\n"
      "    freeze: [transition, emission]\n");
  ASSERT_OK(r);
  const PipelineSpec& spec = *r;
  EXPECT_EQ(spec.name, "demo");
  EXPECT_EQ(spec.file, dir_ + "/p.yaml");
  EXPECT_EQ(spec.dir, dir_);
  ASSERT_EQ(spec.nodes.size(), 3u);
  EXPECT_EQ(spec.nodes[0].name, "src");
  EXPECT_EQ(spec.nodes[0].loc.ToString(), dir_ + "/p.yaml:3:3");
  EXPECT_EQ(spec.nodes[0].kind_loc.ToString(), dir_ + "/p.yaml:3:15");
  EXPECT_EQ(spec.nodes[0].params.at("rate").scalar, "0.10");
  EXPECT_EQ(spec.nodes[0].params.at("code").scalar, "007");
  EXPECT_EQ(spec.nodes[0].params.at("path").loc.ToString(), dir_ + "/p.yaml:3:31");

  const NodeSpec& vocab = spec.nodes[1];
  EXPECT_TRUE(vocab.in_is_list);
  ASSERT_EQ(vocab.inputs.size(), 2u);
  EXPECT_EQ(vocab.inputs[1].port, "");
  EXPECT_EQ(vocab.inputs[1].source, "src");
  EXPECT_EQ(vocab.inputs[1].loc.col, 36);

  const NodeSpec& pair = *spec.FindNode("pair");
  EXPECT_FALSE(pair.in_is_list);
  ASSERT_EQ(pair.inputs.size(), 2u);
  EXPECT_EQ(pair.inputs[0].port, "left");
  EXPECT_EQ(pair.inputs[1].port, "right");
  EXPECT_EQ(pair.inputs[1].source, "vocab");
  const RawParam& freeze = pair.params.at("freeze");
  EXPECT_TRUE(freeze.is_list);
  EXPECT_EQ(freeze.items, (std::vector<std::string>{"transition", "emission"}));
  EXPECT_EQ(spec.FindNode("absent"), nullptr);
}

TEST_F(DslParseTest, NameDefaultsToTheFileStem) {
  auto r = Parse("nodes:\n  a: {kind: t.source}\n");
  ASSERT_OK(r);
  EXPECT_EQ(r->name, "p");
}

TEST_F(DslParseTest, NestedParametersFlattenToDottedNames) {
  auto r = Parse("nodes:\n  a:\n    kind: t.pair\n    smoothing: {transition: 0.2, emission: {floor: 1e-3}}\n");
  ASSERT_OK(r);
  const auto& params = r->nodes[0].params;
  ASSERT_EQ(params.size(), 2u);
  EXPECT_EQ(params.at("smoothing.transition").scalar, "0.2");
  EXPECT_EQ(params.at("smoothing.emission.floor").scalar, "1e-3");
  EXPECT_EQ(params.at("smoothing.emission.floor").loc.ToString(), dir_ + "/p.yaml:4:52");
}

TEST_F(DslParseTest, VarsUseOtherVarsAndTheEnvironment) {
  ScopedEnv home("SEQFLOW_TEST_ROOT", "/data/root");
  auto r = Parse(
      "vars:\n"
      "  corpus: ${base}/train.txt\n"
      "  base: ${SEQFLOW_TEST_ROOT}/cora\n"
      "  eps: 0.2\n"
      "nodes:\n"
      "  a: {kind: t.source, path: \"${corpus}\", eps: \"${eps}\", both: \"${eps}-${eps}\", list: [\"${eps}\", x]}\n");
  ASSERT_OK(r);
  EXPECT_EQ(r->vars.at("corpus"), "/data/root/cora/train.txt");
  EXPECT_EQ(r->vars.at("base"), "/data/root/cora");
  const auto& params = r->nodes[0].params;
  EXPECT_EQ(params.at("path").scalar, "/data/root/cora/train.txt");
  EXPECT_EQ(params.at("both").scalar, "0.2-0.2");
  EXPECT_EQ(params.at("list").items, (std::vector<std::string>{"0.2", "x"}));
}

TEST_F(DslParseTest, DeclaredVarsShadowTheEnvironment) {
  ScopedEnv env("SEQFLOW_TEST_ROOT", "/from/env");
  auto r = Parse("vars:\n  SEQFLOW_TEST_ROOT: /from/vars\nnodes:\n  a: {kind: t.source, path: \"${SEQFLOW_TEST_ROOT}\"}\n");
  ASSERT_OK(r);
  EXPECT_EQ(r->nodes[0].params.at("path").scalar, "/from/vars");
}

TEST_F(DslParseTest, DataDirDefaultsBesideTheProjectRoot) {
  ScopedEnv unset("SEQFLOW_DATA", std::nullopt);
  Write("proj/CMakeLists.txt", "project(x)\n");
  std::string path = Write("proj/pipelines/exp/p.yaml", "nodes:\n  a: {kind: t.source, path: \"${SEQFLOW_DATA}/x\"}\n");
  auto r = ParsePipelineFile(path, {}, Env::Default());
  ASSERT_OK(r);
  EXPECT_EQ(r->nodes[0].params.at("path").scalar, dir_ + "/shared/data/x");
}

TEST_F(DslParseTest, DataDirWithoutProjectRootIsBesideThePipeline) {
  ScopedEnv unset("SEQFLOW_DATA", std::nullopt);
  std::string path = Write("lone/p.yaml", "nodes:\n  a: {kind: t.source, path: \"${SEQFLOW_DATA}/x\"}\n");
  auto r = ParsePipelineFile(path, {}, Env::Default());
  ASSERT_OK(r);
  EXPECT_EQ(r->nodes[0].params.at("path").scalar, dir_ + "/shared/data/x");
}

TEST_F(DslParseTest, DataDirFromTheEnvironment) {
  ScopedEnv set("SEQFLOW_DATA", "/mnt/data");
  auto r = Parse("nodes:\n  a: {kind: t.source, path: \"${SEQFLOW_DATA}/x\"}\n");
  ASSERT_OK(r);
  EXPECT_EQ(r->nodes[0].params.at("path").scalar, "/mnt/data/x");
}

constexpr char kOverridable[] =
    "vars:\n"
    "  eps_t: 0.2\n"
    "nodes:\n"
    "  a: {kind: t.source, path: x.txt}\n"
    "  b: {kind: t.double, in: [a], factor: \"${eps_t}\"}\n"
    "  c: {kind: t.pair, in: {left: a, right: b}, smoothing: {transition: \"${eps_t}\"}}\n";

TEST_F(DslParseTest, SetOfAVarChangesEveryUse) {
  auto r = Parse(kOverridable, {"eps_t=0.1"});
  ASSERT_OK(r);
  EXPECT_EQ(r->vars.at("eps_t"), "0.1");
  EXPECT_EQ(r->FindNode("b")->params.at("factor").scalar, "0.1");
  EXPECT_EQ(r->FindNode("c")->params.at("smoothing.transition").scalar, "0.1");
  EXPECT_EQ(r->FindNode("c")->params.at("smoothing.transition").loc.ToString(), dir_ + "/p.yaml:6:70");
}

TEST_F(DslParseTest, SetOfNodeParametersAndKind) {
  auto r = Parse(kOverridable, {"b.factor=3", "c.smoothing.emission=${eps_t}", "a.kind=t.other",
                                "c.freeze=[x, y]", "b.factor=4"});
  ASSERT_OK(r);
  const RawParam& factor = r->FindNode("b")->params.at("factor");
  EXPECT_EQ(factor.scalar, "4");
  EXPECT_EQ(factor.loc.ToString(), "--set");
  EXPECT_EQ(r->FindNode("c")->params.at("smoothing.emission").scalar, "0.2");
  EXPECT_EQ(r->FindNode("a")->kind, "t.other");
  EXPECT_EQ(r->FindNode("a")->kind_loc.file, "--set");
  const RawParam& freeze = r->FindNode("c")->params.at("freeze");
  EXPECT_TRUE(freeze.is_list);
  EXPECT_EQ(freeze.items, (std::vector<std::string>{"x", "y"}));
}

TEST_F(DslParseTest, IncludesMergeAndTheIncludingFileWins) {
  Write("common/base.yaml",
        "name: base\n"
        "include: readers.yaml\n"
        "vars: {eps: 0.5, corpus: \"${root}/train\", root: /base}\n"
        "nodes:\n"
        "  model: {kind: t.double, in: [reader], factor: \"${eps}\"}\n"
        "ablations:\n"
        "  eps: {model.factor: [1, 2]}\n");
  Write("common/readers.yaml", "nodes:\n  reader: {kind: t.source, path: \"${corpus}\"}\n");
  auto r = Parse(
      "name: main\n"
      "include: common/base.yaml\n"
      "vars: {root: /main}\n"
      "nodes:\n"
      "  model: {kind: t.double, in: [reader], factor: 7}\n"
      "  score: {kind: t.merge, in: [model]}\n");
  ASSERT_OK(r);
  EXPECT_EQ(r->name, "main");
  std::vector<std::string> order;
  for (const auto& n : r->nodes) order.push_back(n.name);
  EXPECT_EQ(order, (std::vector<std::string>{"reader", "model", "score"}));
  EXPECT_EQ(r->vars.at("corpus"), "/main/train");
  EXPECT_EQ(r->FindNode("reader")->params.at("path").scalar, "/main/train");
  EXPECT_EQ(r->FindNode("reader")->loc.ToString(), dir_ + "/common/readers.yaml:2:3");
  EXPECT_EQ(r->FindNode("model")->params.at("factor").scalar, "7");
  ASSERT_EQ(r->ablations.size(), 1u);
  EXPECT_EQ(r->ablations[0].name, "eps");
}

TEST_F(DslParseTest, AnchorsAliasesAndMergeKeys) {
  auto r = Parse(
      "nodes:\n"
      "  a: &src {kind: t.source, path: x.txt, freeze: &f [x, y]}\n"
      "  b: *src\n"
      "  c:\n"
      "    <<: *src\n"
      "    path: y.txt\n"
      "    other: *f\n"
      "  d: {<<: [{kind: t.first, p: 1}, {kind: t.second, q: 2}]}\n");
  ASSERT_OK(r);
  const NodeSpec& b = *r->FindNode("b");
  EXPECT_EQ(b.kind, "t.source");
  EXPECT_EQ(b.params.at("path").scalar, "x.txt");
  const NodeSpec& c = *r->FindNode("c");
  EXPECT_EQ(c.kind, "t.source");
  EXPECT_EQ(c.params.at("path").scalar, "y.txt");
  EXPECT_EQ(c.params.at("freeze").items, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(c.params.at("other").items, (std::vector<std::string>{"x", "y"}));
  const NodeSpec& d = *r->FindNode("d");
  EXPECT_EQ(d.kind, "t.first");
  EXPECT_EQ(d.params.at("p").scalar, "1");
  EXPECT_EQ(d.params.at("q").scalar, "2");
}

TEST_F(DslParseTest, IncludePathsExpandEnvironmentVariables) {
  ScopedEnv env("SEQFLOW_TEST_INC", dir_ + "/shared");
  Write("shared/base.yaml", "nodes:\n  a: {kind: t.source}\n");
  auto r = Parse("include: \"${SEQFLOW_TEST_INC}/base.yaml\"\n");
  ASSERT_OK(r);
  ASSERT_EQ(r->nodes.size(), 1u);
  EXPECT_EQ(r->nodes[0].loc.file, dir_ + "/shared/base.yaml");
}

TEST_F(DslParseTest, ParsePipelineTextAnchorsRelativeIncludes) {
  Write("inc.yaml", "nodes:\n  a: {kind: t.source}\n");
  auto r = ParsePipelineText("include: inc.yaml\n", dir_ + "/virtual.yaml", {}, Env::Default());
  ASSERT_OK(r);
  EXPECT_EQ(r->name, "virtual");
  ASSERT_EQ(r->nodes.size(), 1u);
  EXPECT_EQ(r->nodes[0].loc.ToString(), dir_ + "/inc.yaml:2:3");
}

}  // namespace parse_test
}  // namespace seqflow::testutil

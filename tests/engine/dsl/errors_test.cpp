// Bad pipelines: each is reported at its exact file:line:col with a message that says what was
// expected and how to fix it.
#include <sys/stat.h>

#include "tests/engine/dsl/pipeline_fixture.h"

namespace seqflow::testutil {
namespace errors_test {

class DslErrorTest : public PipelineTest {};

TEST_F(DslErrorTest, MalformedYamlAtTheParserMark) {
  auto r = Parse("nodes:\n  a: {kind: t.source, in: [x, y}\n");
  EXPECT_TRUE(FailsAt(r, "p.yaml", 2, 32,
                      "malformed YAML: did not find expected ',' or ']' while parsing a flow sequence (check "
                      "indentation, brackets and quotes here)"));
}

// The walks over the tree recurse per level: nesting past kMaxYamlDepth is a located error.
TEST_F(DslErrorTest, YamlNestedThousandsDeepIsALocatedError) {
  auto r = Parse("nodes:\n  n: {kind: t.source, x: " + std::string(100000, '[') + std::string(100000, ']') + "}\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("levels deep here, deeper than the parser follows"), std::string::npos)
      << r.status().ToString();
  EXPECT_EQ(r.status().loc().line, 2);
}

TEST_F(DslErrorTest, FileThatIsNotAMap) {
  EXPECT_TRUE(FailsAt(Parse("- a\n- b\n"), "p.yaml", 1, 1,
                      "a pipeline file must be a map with keys name, include, vars, nodes, ablations; got a list"));
}

TEST_F(DslErrorTest, EmptyFile) {
  EXPECT_TRUE(FailsAt(Parse(""), "p.yaml", 1, 1, "pipeline file is empty; expected a map with at least nodes:"));
}

TEST_F(DslErrorTest, NoNodes) {
  EXPECT_TRUE(FailsAt(Parse("name: x\n"), "p.yaml", 0, 0,
                      "the pipeline has no nodes; add nodes: {NAME: {kind: KIND, ...}}"));
}

TEST_F(DslErrorTest, UnknownTopLevelKeySuggestsNearest) {
  auto r = Parse("name: x\nnode:\n  a: {kind: t.source}\n");
  EXPECT_TRUE(FailsAt(r, "p.yaml", 2, 1,
                      "unknown top-level key 'node' — did you mean 'nodes'? (expected name, include, vars, nodes, "
                      "ablations, repeat, repeats)"));
}

TEST_F(DslErrorTest, DuplicateNodeName) {
  auto r = Parse("nodes:\n  a: {kind: t.source}\n  b: {kind: t.source}\n  a: {kind: t.double}\n");
  EXPECT_TRUE(FailsAt(r, "p.yaml", 4, 3,
                      "duplicate key 'a' in 'nodes' (first at line 2); YAML keeps only one, remove or rename one"));
}

TEST_F(DslErrorTest, NodeThatIsNotAMap) {
  EXPECT_TRUE(FailsAt(Parse("nodes:\n  a: t.source\n"), "p.yaml", 2, 6,
                      "node 'a' must be a map with a kind, e.g. a: {kind: read.conll, path: data.conll}; got a scalar"));
}

TEST_F(DslErrorTest, KindMissing) {
  EXPECT_TRUE(FailsAt(Parse("nodes:\n  a: {path: x.txt}\n"), "p.yaml", 2, 3,
                      "node 'a' has no 'kind'; add kind: KIND (`seqflow kinds` lists them)"));
}

TEST_F(DslErrorTest, KindNotAScalar) {
  EXPECT_TRUE(FailsAt(Parse("nodes:\n  a:\n    kind: [t.source, t.double]\n"), "p.yaml", 3, 11,
                      "'kind' of node 'a' must be a single value, got a list"));
}

TEST_F(DslErrorTest, KindEmpty) {
  EXPECT_TRUE(FailsAt(Parse("nodes:\n  a: {kind: \"\"}\n"), "p.yaml", 2, 13,
                      "'kind' of node 'a' is empty; write a kind name"));
}

TEST_F(DslErrorTest, InAsAScalar) {
  auto r = Parse("nodes:\n  a: {kind: t.source}\n  b: {kind: t.double, in: a}\n");
  EXPECT_TRUE(FailsAt(r, "p.yaml", 3, 27,
                      "'in' of node 'b' must be a list of node names (in: [a, b]) or a map port -> node "
                      "(in: {data: a}), got a scalar"));
}

TEST_F(DslErrorTest, InPortGivenAMap) {
  auto r = Parse("nodes:\n  b:\n    kind: t.double\n    in: {data: {x: a}}\n");
  EXPECT_TRUE(FailsAt(r, "p.yaml", 4, 16, "input 'data' of node 'b' must name a node or a list of nodes, got a map"));
}

// A file that is not a pipeline (a mistyped include: of a system file) is named, its text is not
// quoted back into the error.
TEST_F(DslErrorTest, AFileThatIsNoPipelineIsNotQuotedBack) {
  Result<PipelineSpec> r = Parse("root:$y$j9T$secret:19000:0:99999:7:::\n");
  ASSERT_FALSE(r.ok());
  const std::string message = r.status().ToString();
  EXPECT_NE(message.find("this file is not a pipeline"), std::string::npos) << message;
  EXPECT_EQ(message.find("secret"), std::string::npos) << message;
}

TEST_F(DslErrorTest, NodeNameWithADot) {
  EXPECT_TRUE(FailsAt(Parse("nodes:\n  a.b: {kind: t.source}\n"), "p.yaml", 2, 3,
                      "node name 'a.b' may hold only letters, digits, '_' and '-', not first (it names the "
                      "node's files under --out, and --set and ablations address NODE.FIELD)"));
}

// The pipeline's name is the folder of its run records (out/NAME/...).
TEST_F(DslErrorTest, PipelineNameThatIsAPath) {
  EXPECT_TRUE(FailsAt(Parse("name: ../elsewhere\nnodes:\n  a: {kind: t.source}\n"), "p.yaml", 1, 7,
                      "pipeline name '../elsewhere' may hold only letters, digits, '.', '_' and '-', not first '.' "
                      "or '-' (it names the folder of its run records)"));
  EXPECT_TRUE(FailsAt(Parse("vars: {v: a/b}\nname: x-${v}\nnodes:\n  a: {kind: t.source}\n"), "p.yaml", 2, 7,
                      "pipeline name 'x-a/b' may hold only letters, digits, '.', '_' and '-', not first '.' or '-' "
                      "(it names the folder of its run records)"));
  EXPECT_OK(Parse("name: conll2000.crf_v2-b\nnodes:\n  a: {kind: t.source}\n"));
}

// A name that is a path would put the node's files outside --out.
TEST_F(DslErrorTest, NodeNameThatIsAPathOrAFlag) {
  for (const char* name : {"\"/abs/path/X\"", "\"../../X\"", "\"a b\"", "-x"}) {
    Result<PipelineSpec> r = Parse(std::string("nodes:\n  ") + name + ": {kind: t.source}\n");
    ASSERT_FALSE(r.ok()) << name;
    EXPECT_NE(r.status().ToString().find("may hold only letters, digits, '_' and '-'"), std::string::npos)
        << r.status().ToString();
  }
}

TEST_F(DslErrorTest, ParameterWithoutValueIsReportedAtItsKey) {
  EXPECT_TRUE(FailsAt(Parse("nodes:\n  a:\n    kind: t.source\n    path:\n"), "p.yaml", 4, 5,
                      "parameter 'path' of node 'a' is empty; give it a value (write \"\" for empty text)"));
}

TEST_F(DslErrorTest, ParameterListHoldingAMap) {
  EXPECT_TRUE(FailsAt(Parse("nodes:\n  a:\n    kind: t.source\n    freeze: [x, {y: 1}]\n"), "p.yaml", 4, 17,
                      "parameter 'freeze' of node 'a' must be a list of single values, got a map as an item"));
}

TEST_F(DslErrorTest, ParameterGivenDottedAndNested) {
  auto r = Parse("nodes:\n  a:\n    kind: t.pair\n    smoothing.transition: 0.1\n    smoothing: {transition: 0.2}\n");
  EXPECT_TRUE(FailsAt(r, "p.yaml", 5, 17,
                      "parameter 'smoothing.transition' of node 'a' is given twice (as a dotted name and inside a "
                      "map); keep one"));
}

TEST_F(DslErrorTest, MergeKeyOfAScalar) {
  EXPECT_TRUE(FailsAt(Parse("nodes:\n  a:\n    <<: base\n    kind: t.source\n"), "p.yaml", 3, 5,
                      "merge key '<<' in node 'a' expects an alias of a map (<<: *name) or a list of them, got a "
                      "scalar"));
}

TEST_F(DslErrorTest, UndefinedVariableSuggestsADeclaredOne) {
  auto r = Parse("vars:\n  data: /tmp\nnodes:\n  a: {kind: t.source, path: \"${dta}/x.txt\"}\n");
  EXPECT_TRUE(FailsAt(r, "p.yaml", 4, 29,
                      "undefined variable '${dta}' — did you mean 'data'? (declare it under vars: or set it in the "
                      "environment)"));
}

TEST_F(DslErrorTest, UnterminatedReference) {
  EXPECT_TRUE(FailsAt(Parse("nodes:\n  a: {kind: t.source, path: \"${data/x.txt\"}\n"), "p.yaml", 2, 29,
                      "unterminated '${' in '${data/x.txt'; close it with '}'"));
}

TEST_F(DslErrorTest, VariablesReferringToEachOther) {
  auto r = Parse("vars:\n  a: ${b}/x\n  b: ${a}/y\nnodes:\n  n: {kind: t.source, path: \"${a}\"}\n");
  EXPECT_TRUE(FailsAt(r, "p.yaml", 2, 6, "variable 'a' refers to itself: a -> b -> a"));
}

TEST_F(DslErrorTest, VariableThatIsAList) {
  EXPECT_TRUE(FailsAt(Parse("vars:\n  list: [a, b]\nnodes:\n  n: {kind: t.source}\n"), "p.yaml", 2, 9,
                      "var 'list' must be a single value, got a list"));
}

TEST_F(DslErrorTest, IncludeCycle) {
  Write("a.yaml", "include: p.yaml\n");
  auto r = Parse("include: a.yaml\nnodes:\n  n: {kind: t.source}\n");
  EXPECT_TRUE(FailsAt(r, "a.yaml", 1, 10,
                      "include cycle: " + dir_ + "/p.yaml -> " + dir_ + "/a.yaml -> " + dir_ +
                          "/p.yaml; remove one of these includes"));
}

TEST_F(DslErrorTest, IncludeOfAMissingFile) {
  auto r = Parse("include: [missing.yaml]\nnodes:\n  n: {kind: t.source}\n");
  EXPECT_TRUE(FailsAt(r, "p.yaml", 1, 11,
                      "cannot read included file '" + dir_ + "/missing.yaml': cannot open " + dir_ +
                          "/missing.yaml: No such file or directory"));
}

TEST_F(DslErrorTest, IncludesNestedTooDeep) {
  for (int i = 0; i < 20; ++i)
    Write("f" + std::to_string(i) + ".yaml", "include: f" + std::to_string(i + 1) + ".yaml\n");
  Write("f20.yaml", "nodes:\n  n: {kind: t.source}\n");
  auto r = Parse("include: f0.yaml\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("includes nest more than 16 files deep"), std::string::npos)
      << r.status().ToString();
  EXPECT_EQ(r.status().loc().line, 1);
}

// Each level includes the next twice: 2^12 reads of 13 small files, refused after 1,000.
TEST_F(DslErrorTest, AnIncludeTreeThatFansOutIsBounded) {
  for (int i = 0; i < 12; ++i) {
    const std::string next = "l" + std::to_string(i + 1) + ".yaml";
    Write("l" + std::to_string(i) + ".yaml", "include: [" + next + ", " + next + "]\n");
  }
  Write("l12.yaml", "nodes:\n  n: {kind: t.source}\n");
  auto r = Parse("include: l0.yaml\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("reads more than 1000 files through its includes"), std::string::npos)
      << r.status().ToString();
}

// Reading a FIFO blocks until a writer comes: the include is refused before it is opened.
TEST_F(DslErrorTest, AnIncludeOfAFifoIsRefusedNotWaitedFor) {
  ASSERT_EQ(::mkfifo((dir_ + "/fifo.yaml").c_str(), 0600), 0);
  auto r = Parse("include: fifo.yaml\nnodes:\n  n: {kind: t.source}\n");
  EXPECT_TRUE(FailsAt(r, "p.yaml", 1, 10,
                      "cannot read included file '" + dir_ +
                          "/fifo.yaml': it is not a regular file (a FIFO, a device or a socket)"));
  auto top = ParsePipelineFile(dir_ + "/fifo.yaml", {}, Env::Default());
  ASSERT_FALSE(top.ok());
  EXPECT_NE(top.status().message().find("not a regular file"), std::string::npos) << top.status().ToString();
}

TEST_F(DslErrorTest, ErrorsInAnIncludedFileNameThatFile) {
  Write("sub/base.yaml", "nodes:\n  a:\n    kind: [x]\n");
  auto r = Parse("include: sub/base.yaml\nnodes:\n  n: {kind: t.source}\n");
  EXPECT_TRUE(FailsAt(r, "base.yaml", 3, 11, "'kind' of node 'a' must be a single value, got a list"));
  EXPECT_EQ(r.status().loc().file, dir_ + "/sub/base.yaml");
}

TEST_F(DslErrorTest, IncludePathWithAVar) {
  auto r = Parse("vars: {dir: x}\ninclude: \"${dir}/a.yaml\"\nnodes:\n  n: {kind: t.source}\n");
  EXPECT_TRUE(FailsAt(r, "p.yaml", 2, 10,
                      "include paths see environment variables only: undefined variable '${dir}' (declare it under "
                      "vars: or set it in the environment)"));
}

constexpr char kSmall[] = "vars:\n  eps_t: 0.2\nnodes:\n  a: {kind: t.source}\n  b: {kind: t.double, in: [a]}\n";

TEST_F(DslErrorTest, SetOfAnUndeclaredVarSuggestsOne) {
  EXPECT_TRUE(FailsAt(Parse(kSmall, {"eps=0.1"}), "--set", 0, 0,
                      "--set 'eps=0.1': no var or node named 'eps' — did you mean 'eps_t'? (set a declared var "
                      "with k=v, or a node with NODE.FIELD=v)"));
}

TEST_F(DslErrorTest, SetOfAnUnknownNodeSuggestsOne) {
  EXPECT_TRUE(FailsAt(Parse(kSmall, {"bb.factor=2"}), "--set", 0, 0,
                      "--set 'bb.factor=2': no var or node named 'bb' — did you mean 'b.factor'? (set a declared "
                      "var with k=v, or a node with NODE.FIELD=v)"));
}

TEST_F(DslErrorTest, SetWithoutEquals) {
  EXPECT_TRUE(FailsAt(Parse(kSmall, {"eps_t"}), "--set", 0, 0,
                      "--set 'eps_t' must be k=v (a var) or NODE.FIELD=v (a node's kind or parameter)"));
}

TEST_F(DslErrorTest, SetOfInputs) {
  EXPECT_TRUE(FailsAt(Parse(kSmall, {"b.in=[a]"}), "--set", 0, 0,
                      "--set 'b.in=[a]': only a node's kind or a parameter can be set, not 'in'"));
}

TEST_F(DslErrorTest, SetOfAListToAVar) {
  EXPECT_TRUE(FailsAt(Parse(kSmall, {"eps_t=[1, 2]"}), "--set", 0, 0,
                      "--set 'eps_t=[1, 2]': 'eps_t' takes a single value, not a list"));
}

TEST_F(DslErrorTest, UndefinedVariableInASetValue) {
  EXPECT_TRUE(FailsAt(Parse(kSmall, {"a.path=${nope}/x"}), "--set", 0, 0,
                      "undefined variable '${nope}' (declare it under vars: or set it in the environment)"));
}

constexpr char kTwoNodes[] = "nodes:\n  source: {kind: t.source}\n  scorer: {kind: t.double, in: [source]}\n";

TEST_F(DslErrorTest, AblationAxisWithUnequalValueCounts) {
  auto r = Parse(std::string(kTwoNodes) +
                 "ablations:\n  axis:\n    source.kind: [t.x, t.y]\n    scorer.factor: [1, 2, 3]\n");
  EXPECT_TRUE(FailsAt(r, "p.yaml", 5, 3,
                      "ablation axis 'axis': 'source.kind' has 2 values but 'scorer.factor' has 3; the targets of "
                      "an axis move together, give them the same number of values"));
}

TEST_F(DslErrorTest, AblationOfAnUnknownNodeSuggestsOne) {
  auto r = Parse(std::string(kTwoNodes) + "ablations:\n  axis: {scorr.factor: [1, 2]}\n");
  EXPECT_TRUE(FailsAt(r, "p.yaml", 5, 10, "ablation axis 'axis' names unknown node 'scorr' — did you mean 'scorer'?"));
}

TEST_F(DslErrorTest, AblationTargetWithoutNode) {
  auto r = Parse(std::string(kTwoNodes) + "ablations:\n  axis:\n    factor: [1, 2]\n");
  EXPECT_TRUE(FailsAt(r, "p.yaml", 6, 5,
                      "ablation target 'factor' in ablation axis 'axis' must be NODE.FIELD, e.g. predicted.kind"));
}

TEST_F(DslErrorTest, AblationValuesNotAList) {
  auto r = Parse(std::string(kTwoNodes) + "ablations:\n  axis:\n    scorer.factor: 2\n");
  EXPECT_TRUE(FailsAt(r, "p.yaml", 6, 20,
                      "values of 'scorer.factor' in ablation axis 'axis' must be a non-empty list, e.g. [a, b]; "
                      "got a scalar"));
}

TEST_F(DslErrorTest, AblationOfAKindToAList) {
  auto r = Parse(std::string(kTwoNodes) + "ablations:\n  axis:\n    scorer.kind: [t.a, [t.b]]\n");
  EXPECT_TRUE(FailsAt(r, "p.yaml", 6, 24,
                      "each value of 'scorer.kind' in ablation axis 'axis' must be a kind name, got a list"));
}

TEST_F(DslErrorTest, AblationOfInputs) {
  auto r = Parse(std::string(kTwoNodes) + "ablations:\n  axis:\n    scorer.in: [[a], [b]]\n");
  EXPECT_TRUE(FailsAt(r, "p.yaml", 6, 5,
                      "ablations cannot change the inputs of a node ('scorer.in' in ablation axis 'axis'); vary "
                      "its kind or parameters instead"));
}

TEST_F(DslErrorTest, ReadingAMissingPipeline) {
  auto r = ParsePipelineFile(dir_ + "/absent.yaml", {}, Env::Default());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kIo);
  EXPECT_EQ(r.status().ToString(), "cannot read pipeline '" + dir_ + "/absent.yaml': cannot open " + dir_ +
                                       "/absent.yaml: No such file or directory");
}

}  // namespace errors_test
}  // namespace seqflow::testutil

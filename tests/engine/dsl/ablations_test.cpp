// Ablation axes: parsing, one run per value, grids, and unknown axes.
#include "tests/engine/dsl/pipeline_fixture.h"

namespace seqflow::testutil {
namespace ablations_test {

class AblationTest : public PipelineTest {
 protected:
  PipelineSpec ParseOk(const std::string& ablations) {
    auto r = Parse(
        "nodes:\n"
        "  model: {kind: t.double, factor: 1}\n"
        "  predicted: {kind: decode.viterbi, in: [model]}\n" +
        ablations);
    EXPECT_OK(r);
    return r.ok() ? *r : PipelineSpec{};
  }
};

std::vector<std::string> Describe(const std::vector<RunVariant>& runs) {
  std::vector<std::string> out;
  for (const auto& run : runs) {
    std::string line = run.spec.FindNode("predicted")->kind;
    for (const auto& [target, value] : run.assignment) line += " " + target + "=" + value;
    out.push_back(line);
  }
  return out;
}

TEST_F(AblationTest, AxesAreParsedWithTheirPlaces) {
  PipelineSpec spec = ParseOk(
      "ablations:\n"
      "  decoder:\n"
      "    predicted.kind: [decode.viterbi, decode.sms]\n"
      "    model.factor: [1, 2]\n");
  ASSERT_EQ(spec.ablations.size(), 1u);
  const AblationAxis& axis = spec.ablations[0];
  EXPECT_EQ(axis.name, "decoder");
  EXPECT_EQ(axis.loc.line, 5);
  EXPECT_EQ(axis.size(), 2u);
  ASSERT_EQ(axis.targets.size(), 2u);
  EXPECT_EQ(axis.targets[1].node, "model");
  EXPECT_EQ(axis.targets[1].field, "factor");
  EXPECT_EQ(axis.targets[1].loc.ToString(), dir_ + "/p.yaml:7:5");
  EXPECT_EQ(axis.targets[1].values[1].scalar, "2");
  EXPECT_EQ(axis.targets[1].values[1].loc.ToString(), dir_ + "/p.yaml:7:23");
}

TEST_F(AblationTest, ASetFieldThatARunningAxisReplacesIsAnError) {
  const std::string text =
      "nodes:\n"
      "  model: {kind: t.double, factor: 1}\n"
      "  predicted: {kind: decode.viterbi, in: [model]}\n"
      "ablations:\n"
      "  factor: {model.factor: [1, 2]}\n"
      "  decoder: {predicted.kind: [decode.viterbi, decode.sms]}\n";
  Result<PipelineSpec> spec = Parse(text, {"model.factor=3"});
  ASSERT_OK(spec);
  auto grid = ExpandAblations(*spec, "");
  ASSERT_FALSE(grid.ok());
  EXPECT_EQ(grid.status().code(), StatusCode::kInvalid);
  EXPECT_NE(grid.status().ToString().find(dir_ + "/p.yaml:5:12"), std::string::npos) << grid.status().ToString();
  EXPECT_NE(grid.status().ToString().find("--set model.factor would be ignored: ablation axis 'factor'"),
            std::string::npos)
      << grid.status().ToString();
  // With only the other axis running, the --set holds in every run.
  auto decoder = ExpandAblations(*spec, "decoder");
  ASSERT_OK(decoder);
  ASSERT_EQ(decoder->size(), 2u);
  for (const RunVariant& run : *decoder) EXPECT_EQ(run.spec.FindNode("model")->params.at("factor").scalar, "3");
}

TEST_F(AblationTest, NoAxesIsOneBaseRun) {
  PipelineSpec spec = ParseOk("");
  auto runs = ExpandAblations(spec, "");
  ASSERT_OK(runs);
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_TRUE((*runs)[0].assignment.empty());
  EXPECT_EQ((*runs)[0].spec.nodes.size(), 2u);
}

TEST_F(AblationTest, OneAxisSwapsKindAndParameterTogether) {
  PipelineSpec spec = ParseOk(
      "ablations:\n"
      "  decoder: {predicted.kind: [decode.viterbi, decode.sms], model.factor: [\"0.5\", 2]}\n"
      "  other: {model.factor: [3]}\n");
  auto runs = ExpandAblations(spec, "decoder");
  ASSERT_OK(runs);
  EXPECT_EQ(Describe(*runs), (std::vector<std::string>{"decode.viterbi model.factor=0.5 predicted.kind=decode.viterbi",
                                                       "decode.sms model.factor=2 predicted.kind=decode.sms"}));
  const RunVariant& second = (*runs)[1];
  const RawParam& factor = second.spec.FindNode("model")->params.at("factor");
  EXPECT_EQ(factor.scalar, "2");
  EXPECT_EQ(factor.loc.ToString(), dir_ + "/p.yaml:5:81");
  EXPECT_EQ(second.spec.FindNode("predicted")->kind_loc.ToString(), dir_ + "/p.yaml:5:46");
  // The short label names the axis and its first target's value.
  EXPECT_EQ(second.axes, (std::map<std::string, std::string>{{"decoder", "decode.sms"}}));
}

TEST_F(AblationTest, EmptyAxisNameIsTheGridFirstAxisOutermost) {
  PipelineSpec spec = ParseOk(
      "ablations:\n"
      "  decoder: {predicted.kind: [decode.viterbi, decode.sms]}\n"
      "  factor: {model.factor: [1, 2, 3]}\n");
  auto runs = ExpandAblations(spec, "");
  ASSERT_OK(runs);
  EXPECT_EQ(Describe(*runs), (std::vector<std::string>{
                                 "decode.viterbi model.factor=1 predicted.kind=decode.viterbi",
                                 "decode.viterbi model.factor=2 predicted.kind=decode.viterbi",
                                 "decode.viterbi model.factor=3 predicted.kind=decode.viterbi",
                                 "decode.sms model.factor=1 predicted.kind=decode.sms",
                                 "decode.sms model.factor=2 predicted.kind=decode.sms",
                                 "decode.sms model.factor=3 predicted.kind=decode.sms",
                             }));
}

TEST_F(AblationTest, ListValuesAndVars) {
  PipelineSpec spec = ParseOk(
      "vars: {second: emission}\n"
      "ablations:\n"
      "  freeze: {model.freeze: [[], [transition, \"${second}\"]]}\n");
  auto runs = ExpandAblations(spec, "freeze");
  ASSERT_OK(runs);
  ASSERT_EQ(runs->size(), 2u);
  EXPECT_EQ((*runs)[1].assignment.at("model.freeze"), "[transition, emission]");
  const RawParam& freeze = (*runs)[1].spec.FindNode("model")->params.at("freeze");
  EXPECT_TRUE(freeze.is_list);
  EXPECT_EQ(freeze.items, (std::vector<std::string>{"transition", "emission"}));
  EXPECT_EQ((*runs)[0].assignment.at("model.freeze"), "[]");
}

TEST_F(AblationTest, UnknownAxisListsTheAxes) {
  PipelineSpec spec = ParseOk(
      "ablations:\n"
      "  decoder: {predicted.kind: [decode.viterbi]}\n"
      "  criterion: {model.factor: [1]}\n");
  EXPECT_TRUE(FailsAt(ExpandAblations(spec, "decodr"), "", 0, 0,
                      "unknown ablation axis 'decodr' — did you mean 'decoder'? (axes: decoder, criterion)"));
  EXPECT_TRUE(FailsAt(ExpandAblations(ParseOk(""), "decoder"), "", 0, 0,
                      "unknown ablation axis 'decoder' (this pipeline has no ablations)"));
}

}  // namespace ablations_test
}  // namespace seqflow::testutil

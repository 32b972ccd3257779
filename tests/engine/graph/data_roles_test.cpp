// The data-role check: where test and dev data may go, the path a leak is named by, the waivers.
#include "tests/engine/graph/graph_fixture.h"

namespace seqflow::testutil {
namespace data_roles_test {

// On top of the fake catalogue: t.split (reads), t.fit (trains on `data`, learns from the tokens
// of `text`), t.choose (chooses by `dev`), t.decode (reads both).
class DataRoleTest : public GraphTest {
 protected:
  void SetUp() override {
    GraphTest::SetUp();
    registry_.AddKind({"t.split", "1", "", "A", {Port("data", "A")}, {}, nullptr});
    registry_.AddKind(
        KindSpec{"t.fit", "1", "", "B", {Port("data", "A"), Port("text", "A", true, true)}, {}, nullptr}
            .Fitting({"data"})
            .FittingInputs({"text"}));
    registry_.AddKind(
        KindSpec{"t.choose", "1", "", "B", {Port("model", "B"), Port("dev", "A")}, {}, nullptr}.SelectingBy({"dev"}));
    registry_.AddKind({"t.decode", "1", "", "B", {Port("model", "B"), Port("data", "A")}, {}, nullptr});
  }
};

constexpr char kSources[] =
    "nodes:\n"
    "  train: {kind: t.source, path: data.txt}\n"
    "  test:  {kind: t.source, path: data.txt, role: test}\n"
    "  dev:   {kind: t.source, path: data.txt, role: dev}\n";

TEST_F(DataRoleTest, TestDataIsDecodedAndChosenOnDevFreely) {
  Result<Dag> dag = Build(std::string(kSources) +
                          "  model: {kind: t.fit, in: {data: train, text: [train, dev]}}\n"
                          "  pick:  {kind: t.choose, in: {model: model, dev: dev}}\n"
                          "  out:   {kind: t.decode, in: {model: pick, data: test}}\n"
                          "  again: {kind: t.decode, in: {model: out, data: test}}\n");
  EXPECT_TRUE(dag.ok()) << dag.status().ToString();
}

TEST_F(DataRoleTest, TestDataTrainingIsNamedByItsPath) {
  EXPECT_TRUE(FailsAt(Build(std::string(kSources) +
                            "  part:  {kind: t.split, in: {data: test}}\n"
                            "  twice: {kind: t.double, in: [part]}\n"
                            "  model: {kind: t.fit, in: {data: twice}}\n"),
                      "p.yaml", 7, 35,
                      "test data reaches port 'data' of node 'model' (t.fit), which trains on it: test → part → "
                      "twice → model(data); train on training data, or drop `role: test` from 'test' if it is not "
                      "test data"));
}

TEST_F(DataRoleTest, ChoosingByTestDataIsAnOracleOnlyWhenSaidSo) {
  const std::string body = std::string(kSources) + "  model: {kind: t.fit, in: {data: train}}\n";
  EXPECT_TRUE(FailsAt(Build(body + "  pick: {kind: t.choose, in: {model: model, dev: test}}\n"), "p.yaml", 6, 50,
                      "test data reaches port 'dev' of node 'pick' (t.choose), which chooses by it: test → pick(dev); "
                      "choosing by test data makes an oracle row: add `oracle: true` to the node to mean it, choose "
                      "on a dev set, or drop `role: test` from 'test' if it is not test data"));
  Result<Dag> oracle = Build(body + "  pick: {kind: t.choose, in: {model: model, dev: test}, oracle: true}\n");
  EXPECT_TRUE(oracle.ok()) << oracle.status().ToString();
}

TEST_F(DataRoleTest, LearningFromTestTokensIsTransductiveOnlyWhenSaidSo) {
  EXPECT_TRUE(FailsAt(Build(std::string(kSources) + "  model: {kind: t.fit, in: {data: train, text: [train, test]}}\n"),
                      "p.yaml", 5, 56,
                      "test data reaches port 'text' of node 'model' (t.fit), which learns from its tokens: test → "
                      "model(text); learning from the test sentences' tokens is transductive: add `transductive: "
                      "true` to the node to mean it (as Ji et al. do), or drop `role: test` from 'test' if it is "
                      "not test data"));
  Result<Dag> transductive =
      Build(std::string(kSources) + "  model: {kind: t.fit, in: {data: train, text: [test]}, transductive: true}\n");
  EXPECT_TRUE(transductive.ok()) << transductive.status().ToString();
  // The waiver covers the tokens, never the labels.
  EXPECT_TRUE(FailsAt(Build(std::string(kSources) + "  model: {kind: t.fit, in: {data: test}, transductive: true}\n"),
                      "p.yaml", 5, 35,
                      "test data reaches port 'data' of node 'model' (t.fit), which trains on it: test → model(data); "
                      "train on training data, or drop `role: test` from 'test' if it is not test data"));
}

TEST_F(DataRoleTest, DevDataNeverTrains) {
  EXPECT_TRUE(FailsAt(Build(std::string(kSources) + "  model: {kind: t.fit, in: {data: dev}}\n"), "p.yaml", 5, 35,
                      "dev data reaches port 'data' of node 'model' (t.fit), which trains on it: dev → model(data); "
                      "train on training data, or drop `role: dev` from 'dev' if it is not dev data"));
}

TEST_F(DataRoleTest, AWaiverWithNothingToWaiveIsAnError) {
  EXPECT_TRUE(FailsAt(Build(std::string(kSources) + "  model: {kind: t.fit, in: {data: train}, oracle: true}\n"),
                      "p.yaml", 5, 43,
                      "oracle: true has no effect on node 'model' (t.fit): the kind has no port that selects on its "
                      "data; remove it"));
}

TEST_F(DataRoleTest, RolesAreSpelledOut) {
  EXPECT_TRUE(FailsAt(Build("nodes:\n  test: {kind: t.source, path: data.txt, role: testing}\n"), "p.yaml", 2, 48,
                      "'role' of node 'test' is 'testing'; write role: test (data only decoded and evaluated) or "
                      "role: dev (data for choosing, never for training)"));
  EXPECT_TRUE(FailsAt(Build("nodes:\n  p: {kind: t.choose, in: {model: p, dev: p}, oracle: yes}\n"), "p.yaml", 2, 55,
                      "'oracle' of node 'p' is 'yes'; write oracle: true or leave it out"));
}

TEST_F(DataRoleTest, RolesDoNotChangeCacheKeys) {
  Result<Dag> with = Build("nodes:\n  test: {kind: t.source, path: data.txt, role: test}\n");
  Result<Dag> without = Build("nodes:\n  test: {kind: t.source, path: data.txt}\n");
  ASSERT_TRUE(with.ok() && without.ok());
  EXPECT_EQ(Keys(*with), Keys(*without));
}

}  // namespace data_roles_test
}  // namespace seqflow::testutil

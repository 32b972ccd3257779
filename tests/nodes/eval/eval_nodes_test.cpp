#include "nodes/eval/eval_nodes.h"

#include <gtest/gtest.h>

#include "tests/nodes/eval/eval_fixtures.h"
#include "tests/testutil/fake_node_context.h"

namespace seqflow {
namespace eval_nodes_test {

using testutil::FakeNodeContext;

class EvalNodes : public ::testing::Test {
 protected:
  void SetUp() override { RegisterEvalNodes(registry_); }
  // Runs `kind` on the given gold and predictions; returns the Metrics values.
  std::map<std::string, double> Run(const std::string& kind, ArtifactPtr gold, ArtifactPtr predicted,
                                    FakeNodeContext* ctx_out = nullptr) {
    const KindSpec* k = registry_.FindKind(kind);
    EXPECT_NE(k, nullptr);
    FakeNodeContext ctx(*k);
    ctx.AddInput("gold", std::move(gold));
    ctx.AddInput("predicted", std::move(predicted));
    auto metrics = std::dynamic_pointer_cast<const Metrics>(k->run(ctx));
    EXPECT_NE(metrics, nullptr);
    EXPECT_EQ(metrics->values, ctx.metrics());  // every figure reaches the run record
    return metrics->values;
  }
  Registry registry_;
};

TEST_F(EvalNodes, RegistersKinds) {
  for (const char* name : {"eval.tokens", "eval.segments"}) {
    const KindSpec* k = registry_.FindKind(name);
    ASSERT_NE(k, nullptr) << name;
    EXPECT_EQ(k->output_type, "Metrics");
    EXPECT_EQ(k->FindPort("predicted")->type, "Predictions");
    EXPECT_EQ(k->FindPort("gold")->type, "Corpus");
  }
}

TEST_F(EvalNodes, Tokens) {
  auto m = Run("eval.tokens", testutil::GoldCorpus({{"B-NP", "I-NP"}, {"O"}}, TagEncoding::kIob2),
               testutil::PredictionsOf({{"B-NP", "B-NP"}, {"O"}}, TagEncoding::kNone));
  EXPECT_EQ(m, (std::map<std::string, double>{{"accuracy", 2.0 / 3}, {"tokens", 3}, {"sentence_accuracy", 0.5}}));
}

TEST_F(EvalNodes, SegmentsUseTheGoldEncoding) {
  auto m = Run("eval.segments", testutil::GoldCorpus({{"a", "a", "b"}}, TagEncoding::kRuns),
               testutil::PredictionsOf({{"a", "a", "b"}}, TagEncoding::kNone));
  EXPECT_EQ(m.at("gold_segments"), 2);
  EXPECT_EQ(m.at("f1"), 1.0);
  EXPECT_EQ(m.at("f1.a"), 1.0);
}

TEST_F(EvalNodes, RunsAgainstPrefixedTagsIsAnError) {
  try {
    Run("eval.segments", testutil::GoldCorpus({{"B-NP"}}, TagEncoding::kIob2),
        testutil::PredictionsOf({{"B-NP"}}, TagEncoding::kRuns));
    FAIL() << "no error";
  } catch (const StatusError& e) {
    EXPECT_EQ(e.status().message(), "predictions use tag encoding runs, the gold corpus iob2");
  }
}

TEST_F(EvalNodes, MismatchedSentencesAreAnError) {
  try {
    Run("eval.tokens", testutil::GoldCorpus({{"O"}, {"O"}}, TagEncoding::kIob2),
        testutil::PredictionsOf({{"O"}}, TagEncoding::kIob2));
    FAIL() << "no error";
  } catch (const StatusError& e) {
    EXPECT_EQ(e.status().message(), "predictions cover 1 sentences, the gold corpus has 2");
  }
}

}  // namespace eval_nodes_test
}  // namespace seqflow

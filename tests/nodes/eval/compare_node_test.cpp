// eval.compare and the evaluators' sentences.csv attachments: per-sentence counts that sum to
// the reported metrics, the gold fingerprint, and the systems' table with p-values.
#include <gtest/gtest.h>

#include "nodes/eval/eval_nodes.h"
#include "stats/significance.h"
#include "tests/nodes/eval/eval_fixtures.h"
#include "tests/testutil/fake_node_context.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace compare_node_test {

using testutil::FakeNodeContext;
using testutil::GoldCorpus;
using testutil::PredictionsOf;
using testutil::TagSeqs;

class CompareNode : public ::testing::Test {
 protected:
  void SetUp() override { RegisterEvalNodes(registry_); }
  const KindSpec& Kind(const std::string& name) { return *registry_.FindKind(name); }

  SentenceStatsTable Sentences(const std::string& kind, ArtifactPtr gold, ArtifactPtr predicted) {
    FakeNodeContext ctx(Kind(kind));
    ctx.AddInput("gold", std::move(gold));
    ctx.AddInput("predicted", std::move(predicted));
    Kind(kind).run(ctx);
    Result<SentenceStatsTable> table = ParseSentenceStats(ctx.attachments().at("sentences.csv"));
    EXPECT_OK(table);
    return table.ok() ? *table : SentenceStatsTable{};
  }
  Registry registry_;
};

const TagSeqs kGold = {{"B-NP", "I-NP", "O"}, {"B-VP", "O"}, {"O", "B-NP"}};

TEST_F(CompareNode, SegmentSentencesSumToTheCorpusCounts) {
  auto gold = GoldCorpus(kGold, TagEncoding::kIob2);
  SentenceStatsTable t = Sentences(
      "eval.segments", gold, PredictionsOf({{"B-NP", "B-NP", "O"}, {"B-VP", "O"}, {"O", "O"}}, TagEncoding::kNone));
  EXPECT_TRUE(t.segments);
  ASSERT_EQ(t.sentences.size(), 3u);
  // Sentence 1: gold NP(2), predicted NP NP: 0 correct of 2 guessed; 2: VP right; 3: NP missed.
  EXPECT_EQ((std::vector<int64_t>{t.sentences[0].correct, t.sentences[0].guessed, t.sentences[0].gold}),
            (std::vector<int64_t>{0, 2, 1}));
  EXPECT_EQ((std::vector<int64_t>{t.sentences[1].correct, t.sentences[1].guessed, t.sentences[1].gold}),
            (std::vector<int64_t>{1, 1, 1}));
  EXPECT_EQ((std::vector<int64_t>{t.sentences[2].correct, t.sentences[2].guessed, t.sentences[2].gold}),
            (std::vector<int64_t>{0, 0, 1}));
  EXPECT_EQ(t.sentences[0].correct_tokens, 2);
  EXPECT_EQ(t.sentences[2].tokens, 2);
}

TEST_F(CompareNode, FingerprintNamesTheGoldTestSet) {
  auto predicted = PredictionsOf(kGold, TagEncoding::kNone);
  std::string a = Sentences("eval.tokens", GoldCorpus(kGold, TagEncoding::kIob2), predicted).gold_fingerprint;
  std::string b = Sentences("eval.segments", GoldCorpus(kGold, TagEncoding::kIob2), predicted).gold_fingerprint;
  TagSeqs other = kGold;
  other[2][1] = "B-VP";
  std::string c = Sentences("eval.tokens", GoldCorpus(other, TagEncoding::kIob2), predicted).gold_fingerprint;
  EXPECT_EQ(a.size(), 32u);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_FALSE(Sentences("eval.tokens", GoldCorpus(kGold, TagEncoding::kIob2), predicted).segments);
}

// 30 sentences "B-NP I-NP O"; system "good" right everywhere, "bad" labels every NP as O.
struct Systems {
  std::shared_ptr<Corpus> gold;
  std::shared_ptr<Predictions> good, bad;
};
Systems ThirtySentences(TagEncoding encoding) {
  TagSeqs gold(30, {"B-NP", "I-NP", "O"}), bad(30, {"O", "O", "O"});
  return {GoldCorpus(gold, encoding), PredictionsOf(gold, TagEncoding::kNone),
          PredictionsOf(bad, TagEncoding::kNone, {"B-NP", "I-NP", "O"})};
}

TEST_F(CompareNode, EachSystemAgainstTheFirst) {
  Systems s = ThirtySentences(TagEncoding::kIob2);
  FakeNodeContext ctx(Kind("eval.compare"), {{"names", std::vector<std::string>{"good", "bad", "again"}}});
  ctx.AddInput("gold", s.gold);
  for (auto& p : {s.good, s.bad, s.good}) ctx.AddInput("systems", p);
  auto metrics = std::dynamic_pointer_cast<const Metrics>(Kind("eval.compare").run(ctx));
  ASSERT_NE(metrics, nullptr);
  EXPECT_EQ(metrics->values, ctx.metrics());
  EXPECT_EQ(metrics->values.at("f1.good"), 1.0);
  EXPECT_EQ(metrics->values.at("f1.bad"), 0.0);
  EXPECT_DOUBLE_EQ(metrics->values.at("accuracy.bad"), 1.0 / 3);
  EXPECT_LT(metrics->values.at("p_f1.bad"), 0.001);
  EXPECT_LT(metrics->values.at("p_accuracy.bad"), 0.001);
  EXPECT_EQ(metrics->values.at("p_f1.again"), 1.0);
  EXPECT_EQ(metrics->values.count("p_f1.good"), 0u) << "the first system is the reference";
  const std::string& md = ctx.attachments().at("compare.md");
  EXPECT_NE(md.find("| system | f1 | p (f1) | accuracy | p (accuracy) |"), std::string::npos) << md;
  EXPECT_NE(md.find("| good | 1.0000 | ref | 1.0000 | ref |"), std::string::npos) << md;
  EXPECT_NE(md.find("| bad | 0.0000 | <0.001 † | 0.3333 | <0.001 † |"), std::string::npos) << md;
  EXPECT_NE(md.find("| again | 1.0000 | 1.0000 | 1.0000 | 1.0000 |"), std::string::npos) << md;
}

TEST_F(CompareNode, TokensOnlyWithoutAnEncodingAndDefaultNames) {
  Systems s = ThirtySentences(TagEncoding::kNone);
  FakeNodeContext ctx(Kind("eval.compare"), {{"test", std::string("bootstrap")}, {"samples", int64_t{2000}}});
  ctx.AddInput("gold", s.gold);
  ctx.AddInput("systems", s.bad);
  ctx.AddInput("systems", s.good);
  Kind("eval.compare").run(ctx);
  EXPECT_EQ(ctx.metrics().count("f1.system1"), 0u);
  EXPECT_DOUBLE_EQ(ctx.metrics().at("accuracy.system2"), 1.0);
  EXPECT_LT(ctx.metrics().at("p_accuracy.system2"), 0.001);
  EXPECT_NE(ctx.attachments().at("compare.md").find("| system | accuracy | p (accuracy) |"), std::string::npos);
}

TEST_F(CompareNode, NamesMustMatchTheSystems) {
  Systems s = ThirtySentences(TagEncoding::kIob2);
  FakeNodeContext ctx(Kind("eval.compare"), {{"names", std::vector<std::string>{"only"}}});
  ctx.AddInput("gold", s.gold);
  ctx.AddInput("systems", s.good);
  ctx.AddInput("systems", s.bad);
  try {
    Kind("eval.compare").run(ctx);
    FAIL() << "no error";
  } catch (const StatusError& e) {
    EXPECT_EQ(e.status().message(), "'names' lists 1 names for 2 systems; give one per system, in order");
  }
}

}  // namespace compare_node_test
}  // namespace seqflow

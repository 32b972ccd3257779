#include "engine/record/record_diff.h"

#include <gtest/gtest.h>

#include "engine/record/record_merge.h"
#include "tests/engine/record/record_fixture.h"

namespace seqflow {
namespace {

// Two decoders (runs); `hmm` smooths by `emission`; `score` is an evaluator whose per-sentence
// counts are 40 sentences with `correct` of 2 segments right, on the test set `gold`.
struct Side {
  PipelineRecord record;
  SentenceFiles sentences;
};

Side Record(const std::string& emission, int correct, const std::string& gold = "g", bool with_extra = false) {
  Side side;
  side.record.pipeline = "p";
  side.record.kinds["eval.segments"] = {
      NodeRole::kEvaluator, {"f1", "accuracy"}, {AttachmentSpec::SentenceCounts("sentences.csv")}, "", false, ""};
  for (const std::string decoder : {"viterbi", "sms"}) {
    const size_t r = side.record.runs.size();
    RunRecord run;
    run.ablation["predicted.kind"] = decoder;
    run.axes["decoder"] = decoder;
    run.nodes["hmm"].kind = "hmm.supervised";
    run.nodes["hmm"].params = {{"emission", emission}, {"transition", "0.2"}};
    NodeRecord& score = run.nodes["score"];
    score.kind = "eval.segments";
    score.attachments = {"sentences.csv"};
    const double f1 = correct / 2.0;
    score.metrics = {{"f1", f1}, {"accuracy", 0.9}};
    if (with_extra) run.nodes["extra"].kind = "features.vocab";
    side.record.runs.push_back(run);
    SentenceStatsTable table{gold, true, {}};
    for (int i = 0; i < 40; ++i) table.sentences.push_back({correct, 2, 2, 9, 10});
    side.sentences[AttachmentPath(r, 2, "score", "sentences.csv")] = FormatSentenceStats(table);
  }
  return side;
}

TEST(RecordDiffTest, ParametersThatDifferAreListedOnceAndNodesOnOneSideByKind) {
  const Side a = Record("0.05", 2), b = Record("0.1", 1, "g", /*with_extra=*/true);
  const RecordDiff diff = DiffRecords({"A", &a.record, &a.sentences}, {"B", &b.record, &b.sentences});
  ASSERT_EQ(diff.params.size(), 2u);
  EXPECT_EQ(diff.params[0], (ParamChange{"extra", "kind", "", "features.vocab"}));
  EXPECT_EQ(diff.params[1], (ParamChange{"hmm", "emission", "0.05", "0.1"}));
  EXPECT_TRUE(diff.only_a.empty());
}

TEST(RecordDiffTest, MetricsPairBySettingWithDeltasAndTheirPairedTest) {
  const Side a = Record("0.05", 2), b = Record("0.1", 1);
  const RecordDiff diff = DiffRecords({"A", &a.record, &a.sentences}, {"B", &b.record, &b.sentences});
  ASSERT_EQ(diff.metrics.size(), 4u);  // 2 settings x f1, accuracy
  const MetricChange& f1 = diff.metrics[0];
  EXPECT_EQ(f1.setting, "decoder=viterbi");
  EXPECT_EQ(f1.metric, "f1");
  EXPECT_EQ(*f1.a, 1.0);
  EXPECT_EQ(*f1.b, 0.5);
  ASSERT_TRUE(f1.p.has_value());
  EXPECT_LT(*f1.p, 0.001) << "40 sentences each losing one segment";
  ASSERT_TRUE(diff.metrics[1].p.has_value());
  EXPECT_EQ(*diff.metrics[1].p, 1.0) << "token counts are equal";
  const std::string text = DiffText(diff);
  EXPECT_NE(text.find("decoder=viterbi score.f1 1.0000 0.5000 -0.5000 p<0.001†"), std::string::npos) << text;
  EXPECT_NE(text.find("2 of 4 metrics are equal in both and not shown"), std::string::npos) << text;
}

TEST(RecordDiffTest, NoPValueWhereTheTestSentencesDiffer) {
  const Side a = Record("0.05", 2), b = Record("0.05", 1, "other-test-set");
  const RecordDiff diff = DiffRecords({"A", &a.record, &a.sentences}, {"B", &b.record, &b.sentences});
  EXPECT_TRUE(diff.params.empty());
  for (const MetricChange& m : diff.metrics) EXPECT_FALSE(m.p.has_value()) << m.metric;
}

TEST(RecordDiffTest, RunsWithoutAPartnerAreNamedNotCompared) {
  const Side a = Record("0.05", 2);
  Side b = Record("0.05", 2);
  b.record.runs[1].ablation["predicted.kind"] = "posterior";
  const RecordDiff diff = DiffRecords({"A", &a.record, &a.sentences}, {"B", &b.record, &b.sentences});
  EXPECT_EQ(diff.only_a, std::vector<std::string>{"predicted.kind=sms"});
  EXPECT_EQ(diff.only_b, std::vector<std::string>{"predicted.kind=posterior"});
  EXPECT_EQ(diff.metrics.size(), 2u);
}

TEST(RecordMergeTest, RecordsSideBySideKeepTheirFilesApartAndTheirPValues) {
  const Side a = Record("0.05", 2), b = Record("0.1", 1);
  const MergedRecord merged = MergeRecords({{"first", a.record, a.sentences}, {"second", b.record, b.sentences}});
  ASSERT_EQ(merged.record.runs.size(), 4u);
  EXPECT_EQ(merged.record.runs[2].ablation.at("record"), "second");
  EXPECT_EQ(AttachmentFile(merged.record, 2, "score", "sentences.csv"), "2/run-1/score.sentences.csv");
  EXPECT_EQ(merged.sentences.count("2/run-1/score.sentences.csv"), 1u);
  const ReportTable table = BuildReport(merged.record, merged.sentences);
  ASSERT_EQ(table.rows.size(), 4u);
  EXPECT_EQ(table.rows[2].label, "decoder=viterbi, record=second");
  ASSERT_TRUE(table.rows[2].cells[0]->p.has_value()) << "paired with the best row, of the other record";
  EXPECT_LT(*table.rows[2].cells[0]->p, 0.001);
}

}  // namespace
}  // namespace seqflow

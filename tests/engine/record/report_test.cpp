// The comparison table of `seqflow report`: grouping of repetitions, exact mean and standard
// deviation, the best marker, and the three renderings.
#include "engine/record/report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "tests/engine/record/record_fixture.h"

namespace seqflow {
namespace report_test {

using testkit::kEvaluatorKinds;
using testkit::ParseRecord;

// Run JSON with a segment evaluator `score`, and a trainer that reports an "f1" of its own
// (not an evaluator: must not become a column).
std::string Run(const std::string& kind, int seed, const std::string& f1, const std::string& precision,
                const std::string& accuracy) {
  return R"({"ablation": {"predicted.kind": ")" + kind + R"(", "vocab.unknown": "shape", "labeled.seed": ")" +
         std::to_string(seed) + R"("}, "ok": true, "nodes": {
      "hmm": {"kind": "hmm.em", "status": "computed", "metrics": {"f1": 0.99}},
      "score": {"kind": "eval.segments", "status": "computed", "metrics": {"f1": )" +
         f1 + R"(, "precision": )" + precision + R"(, "accuracy": )" + accuracy + R"(, "f1.NP": 0.1}}}})";
}

// Three seeds of Viterbi, one of SMS (whose accuracy is null: non-finite).
std::string Summary() {
  return R"({"pipeline": "demo", "seconds": 1, )" + std::string(kEvaluatorKinds) + R"(, "runs": [)" +
         Run("decode.viterbi", 1, "0.25", "0.5", "0.875") + "," + Run("decode.viterbi", 2, "0.75", "0.5", "0.875") +
         "," + Run("decode.sms", 1, "0.625", "0.75", "null") + "," + Run("decode.viterbi", 3, "0.5", "0.5", "0.625") +
         "]}";
}

ReportTable Build(const std::string& json) { return BuildReport(ParseRecord(json)); }

TEST(ReportTest, RepetitionKeys) {
  EXPECT_TRUE(IsRepetitionKey("labeled.seed"));
  EXPECT_TRUE(IsRepetitionKey("repeat"));
  EXPECT_TRUE(IsRepetitionKey("repeat.index"));
  EXPECT_FALSE(IsRepetitionKey("seeds.count"));
  EXPECT_FALSE(IsRepetitionKey("predicted.kind"));
  EXPECT_FALSE(IsRepetitionKey("repeater.seed_list"));
}

TEST(ReportTest, GroupsSeedsIntoOneRowWithExactMeanAndSampleStd) {
  ReportTable t = Build(Summary());
  EXPECT_EQ(t.pipeline, "demo");
  EXPECT_EQ(t.runs, 4u);
  EXPECT_EQ(t.columns, (std::vector<std::string>{"score.f1", "score.precision", "score.accuracy"}));
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[0].label, "predicted.kind=decode.viterbi, vocab.unknown=shape");
  EXPECT_EQ(t.rows[0].runs, 3u);
  EXPECT_EQ(t.rows[1].label, "predicted.kind=decode.sms, vocab.unknown=shape");
  EXPECT_EQ(t.rows[1].runs, 1u);
  const ReportCell& f1 = *t.rows[0].cells[0];
  EXPECT_EQ(f1.mean, 0.5);     // (0.25 + 0.75 + 0.5) / 3, exact in binary
  EXPECT_EQ(f1.stddev, 0.25);  // sqrt((0.0625 + 0.0625 + 0) / 2)
  EXPECT_EQ(f1.n, 3u);
  double m = (0.875 + 0.875 + 0.625) / 3;
  EXPECT_DOUBLE_EQ(t.rows[0].cells[2]->mean, m);
  EXPECT_DOUBLE_EQ(t.rows[0].cells[2]->stddev,
                   std::sqrt((2 * (0.875 - m) * (0.875 - m) + (0.625 - m) * (0.625 - m)) / 2));
  EXPECT_EQ(t.rows[1].cells[0]->stddev, 0.0);
  EXPECT_FALSE(t.rows[1].cells[2].has_value()) << "null accuracy is not reported";
}

TEST(ReportTest, MarksTheBestMeanOnlyWhereRowsCompete) {
  ReportTable t = Build(Summary());
  EXPECT_FALSE(t.rows[0].cells[0]->best);
  EXPECT_TRUE(t.rows[1].cells[0]->best);   // f1 0.625 > 0.5
  EXPECT_TRUE(t.rows[1].cells[1]->best);   // precision 0.75 > 0.5
  EXPECT_FALSE(t.rows[0].cells[2]->best);  // accuracy: the only row with a value
}

TEST(ReportTest, AxisNamesLabelTheRowsWhenTheRecordHasThem) {
  ReportTable t = Build(
      R"({"pipeline": "p", "runs": [)"
      R"({"ablation": {"a.kind": "decode.sms", "b.kind": "decode.sms", "u.seed": "1"},)"
      R"( "axes": {"decoder": "decode.sms", "repeat": "1"}, "nodes": {}},)"
      R"({"ablation": {"a.kind": "decode.sms", "b.kind": "decode.sms", "u.seed": "2"},)"
      R"( "axes": {"decoder": "decode.sms", "repeat": "2"}, "nodes": {}}]})");
  ASSERT_EQ(t.rows.size(), 1u);  // the repeat axis folds into one row
  EXPECT_EQ(t.rows[0].label, "decoder=decode.sms");
}

TEST(ReportTest, BaseRunAndInvalidSummaries) {
  ReportTable t = Build(R"({"pipeline": "p", "runs": [{"ablation": {}, "nodes": {}}]})");
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_EQ(t.rows[0].label, "base");
  EXPECT_TRUE(t.columns.empty());
  EXPECT_NE(RenderText(t).find("(no evaluator metrics)"), std::string::npos);
}

// Roles are declared, not guessed from names: a kind named like no evaluator that declares the
// role is reported with its own headline metrics in its order, and `eval.x`, named like an
// evaluator but declaring nothing, is not.
TEST(ReportTest, ColumnsComeFromDeclaredRolesNotKindNames) {
  ReportTable t = Build(R"({"pipeline": "p", "kinds": {
      "bleu.scorer": {"role": "evaluator", "headline": ["bleu", "f1"]},
      "eval.x": {"role": "other"}},
    "runs": [{"nodes": {
      "judge": {"kind": "bleu.scorer", "status": "computed", "metrics": {"f1": 0.5, "bleu": 0.25, "other": 1}},
      "fake": {"kind": "eval.x", "status": "computed", "metrics": {"f1": 0.9, "accuracy": 0.9}},
      "undeclared": {"kind": "eval.segments", "status": "computed", "metrics": {"f1": 0.7}}}}]})");
  EXPECT_EQ(t.columns, (std::vector<std::string>{"judge.bleu", "judge.f1"}));
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_EQ(t.rows[0].cells[0]->mean, 0.25);
}

TEST(ReportTest, MarkdownExactText) {
  EXPECT_EQ(RenderMarkdown(Build(Summary())),
            "| run | n | score.f1 | score.precision | score.accuracy |\n"
            "| --- | ---: | ---: | ---: | ---: |\n"
            "| predicted.kind=decode.viterbi, vocab.unknown=shape | 3 | 0.5000 ± 0.2500 | 0.5000 ± 0.0000 | "
            "0.7917 ± 0.1443 |\n"
            "| predicted.kind=decode.sms, vocab.unknown=shape | 1 | **0.6250** | **0.7500** |  |\n");
}

TEST(ReportTest, CsvExactText) {
  EXPECT_EQ(RenderCsv(Build(Summary())),
            "run,n,score.f1,score.f1.std,score.f1.n,score.f1.p,score.precision,score.precision.std,"
            "score.precision.n,score.precision.p,score.accuracy,score.accuracy.std,score.accuracy.n,score.accuracy.p\n"
            "\"predicted.kind=decode.viterbi, vocab.unknown=shape\",3,0.5,0.25,3,,0.5,0,3,,0.7916666667,0.1443375673,3,\n"
            "\"predicted.kind=decode.sms, vocab.unknown=shape\",1,0.625,,1,,0.75,,1,,,,,\n");
}

TEST(ReportTest, TextIsAlignedAndMarksTheBest) {
  std::string text = RenderText(Build(Summary()));
  EXPECT_NE(text.find("demo: 4 runs, 2 rows"), std::string::npos) << text;
  EXPECT_NE(text.find("0.6250*"), std::string::npos) << text;
  EXPECT_NE(text.find("0.5000 ± 0.2500 "), std::string::npos) << text;
  size_t header = text.find("run "), viterbi = text.find("predicted.kind=decode.viterbi");
  ASSERT_NE(header, std::string::npos);
  // Columns line up: "score.f1" starts at the same offset in its line as the row's first value.
  size_t header_col = text.find("score.f1", header) - header;
  size_t value_col = text.find("0.5000", viterbi) - viterbi;
  EXPECT_EQ(header_col, value_col) << text;
}

// Display columns of a UTF-8 line (the table's only non-ASCII character is ±).
size_t Columns(const std::string& line) {
  size_t n = 0;
  for (char c : line) n += (c & 0xC0) != 0x80;
  return n;
}

TEST(ReportTest, WideTablesWrapLabelsAndSplitColumnsWithinTheWidth) {
  std::string nodes;
  for (int i = 0; i < 8; ++i)
    nodes += (i ? "," : "") + std::string(R"("evaluator_)") + std::to_string(i) +
             R"(": {"kind": "eval.segments", "status": "computed",
        "metrics": {"f1": 0.5, "precision": 0.5, "recall": 0.5, "accuracy": 0.5}})";
  std::string long_label =
      R"({"unlabeled.count": "100", "path.criterion": "max_entropy", "model.freeze": "transition"})";
  std::string json = R"({"pipeline": "wide", )" + std::string(kEvaluatorKinds) + R"(, "runs": [{"ablation": )" +
                     long_label + R"(, "nodes": {)" + nodes + "}}]}";
  ReportTable t = Build(json);
  ASSERT_EQ(t.columns.size(), 32u);
  std::string text = RenderText(t, 100);
  std::istringstream lines(text);
  size_t label_lines = 0;
  for (std::string line; std::getline(lines, line);) {
    EXPECT_LE(Columns(line), 100u) << line;
    label_lines += line.find("unlabeled.count=100") != std::string::npos;
  }
  for (const std::string& column : t.columns) EXPECT_NE(text.find(column), std::string::npos) << column;
  EXPECT_GT(label_lines, 1u) << "the label repeats in each column block\n" << text;
  EXPECT_EQ(text.find("model.freeze=transition, path.criterion=max_entropy, unlabeled.count=100"), std::string::npos)
      << "a 70-character label wraps\n"
      << text;
}

// A record with repeat_axis: rows "good", "bad" and "twin" (a copy of "good"), seeds 1 and 2,
// run index = 2 * row + seed - 1, each with a segment evaluator `score` and a token one `tokens`.
std::string RepeatedSummary() {
  const char* decoders[] = {"good", "bad", "twin"};
  const char* f1[] = {"0.9", "0.5", "0.9"};
  std::string runs;
  for (int r = 0; r < 3; ++r)
    for (int seed = 1; seed <= 2; ++seed)
      runs += std::string(runs.empty() ? "" : ",") + R"({"ablation": {"p.kind": ")" + decoders[r] +
              R"(", "split.seed": ")" + std::to_string(seed) + R"("}, "axes": {"decoder": ")" + decoders[r] +
              R"(", "repeat": ")" + std::to_string(seed) + R"("}, "nodes": {"score": {"kind": "eval.segments",
              "status": "computed", "metrics": {"f1": )" +
              f1[r] + R"(, "accuracy": )" + f1[r] + R"(}},
              "tokens": {"kind": "eval.tokens", "status": "computed", "metrics": {"accuracy": )" +
              f1[r] + "}}}}";
  return R"({"pipeline": "rep", "repeat_axis": "repeat", )" + std::string(kEvaluatorKinds) + R"(, "runs": [)" + runs +
         "]}";
}

// 40 sentences per run; "bad" misses one segment and one token in every sentence.
SentenceFiles RepeatedFiles(const std::string& bad_seed2_gold = "g") {
  SentenceFiles files;
  for (size_t run = 0; run < 6; ++run) {
    bool bad = run / 2 == 1;
    SentenceStatsTable segments{run == 3 ? bad_seed2_gold : "g", true, {}}, tokens{"g", false, {}};
    for (int i = 0; i < 40; ++i) {
      segments.sentences.push_back({bad ? 1 : 2, 2, 2, bad ? 4 : 5, 5});
      tokens.sentences.push_back({0, 0, 0, bad ? 4 : 5, 5});
    }
    files[AttachmentPath(run, 6, "score", "sentences.csv")] = FormatSentenceStats(segments);
    files[AttachmentPath(run, 6, "tokens", "sentences.csv")] = FormatSentenceStats(tokens);
  }
  return files;
}

TEST(ReportTest, RepeatAxisGroupsExplicitlyAndPairsBySeed) {
  const ReportTable t = BuildReport(ParseRecord(RepeatedSummary()), RepeatedFiles());
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.rows[0].label, "decoder=good");
  EXPECT_EQ(t.rows[0].runs, 2u);
  EXPECT_EQ(t.columns, (std::vector<std::string>{"score.f1", "score.accuracy", "tokens.accuracy"}));
  EXPECT_TRUE(t.has_p);
  for (size_t c = 0; c < 3; ++c) {
    EXPECT_FALSE(t.rows[0].cells[c]->p.has_value()) << "the best row is the reference";
    ASSERT_TRUE(t.rows[1].cells[c]->p.has_value()) << c;
    EXPECT_LT(*t.rows[1].cells[c]->p, 0.001) << c;
    EXPECT_EQ(t.rows[2].cells[c]->p, 1.0) << "a copy of the best cannot differ";
  }
  std::string text = RenderText(t);
  EXPECT_NE(text.find("p: paired approximate randomization vs the best row"), std::string::npos) << text;
  EXPECT_NE(text.find("0.5000 ± 0.0000 p<0.001†"), std::string::npos) << text;
  EXPECT_NE(text.find("0.9000 ± 0.0000* p=1.000"), std::string::npos) << text;
  EXPECT_NE(RenderMarkdown(t).find("| 0.5000 ± 0.0000 p<0.001† |"), std::string::npos) << RenderMarkdown(t);
  EXPECT_NE(RenderCsv(t).find(",0.9,0,2,1,"), std::string::npos) << RenderCsv(t);
}

TEST(ReportTest, RepeatAxisKeepsOtherSeedKeysInTheLabel) {
  // Without "axes", the explicit repeat axis is not in the assignment: `split.seed` then is an
  // ordinary ablation key, not a repetition, and separates the rows.
  ReportTable t = Build(
      R"({"pipeline": "p", "repeat_axis": "repeat", "runs": [)"
      R"({"ablation": {"split.seed": "1"}, "nodes": {}}, {"ablation": {"split.seed": "2"}, "nodes": {}}]})");
  EXPECT_EQ(t.rows.size(), 2u);
}

TEST(ReportTest, NoPValueWithoutAPairedTestSet) {
  // Seed 2 of "bad" was scored on another test set: its row cannot be paired for `score`.
  std::optional<ReportTable> t = BuildReport(ParseRecord(RepeatedSummary()), RepeatedFiles("other"));
  EXPECT_FALSE(t->rows[1].cells[0]->p.has_value());
  EXPECT_TRUE(t->rows[1].cells[2]->p.has_value()) << "tokens still pair";
  // Token statistics cannot test F1; no files at all means no p anywhere.
  SentenceFiles files = RepeatedFiles();
  for (size_t run = 0; run < 6; ++run)
    files[AttachmentPath(run, 6, "score", "sentences.csv")] =
        files[AttachmentPath(run, 6, "tokens", "sentences.csv")];
  t = BuildReport(ParseRecord(RepeatedSummary()), files);
  EXPECT_FALSE(t->rows[1].cells[0]->p.has_value());
  EXPECT_TRUE(t->rows[1].cells[1]->p.has_value());
  t = BuildReport(ParseRecord(RepeatedSummary()));
  EXPECT_FALSE(t->has_p);
  EXPECT_EQ(RenderText(*t).find("p: paired"), std::string::npos);
}

TEST(ReportTest, RowsWithDifferentSeedsAreNotPaired) {
  SentenceFiles files = RepeatedFiles();
  std::string summary = RepeatedSummary();
  // Run 3 ("bad", seed 2) becomes seed 3.
  size_t at = 0;
  for (int i = 0; i < 4; ++i) at = summary.find(R"("repeat": ")", at + 1);
  summary.replace(summary.find('2', at), 1, "3");
  std::optional<ReportTable> t = BuildReport(ParseRecord(summary), files);
  EXPECT_FALSE(t->rows[1].cells[0]->p.has_value());
  EXPECT_TRUE(t->rows[2].cells[0]->p.has_value());
}

}  // namespace report_test
}  // namespace seqflow

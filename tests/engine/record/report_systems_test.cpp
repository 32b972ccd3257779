// The comparison table with systems as rows (BuildSystemsReport), and a per-system evaluator
// (eval.compare's declaration) in both tables: its systems' numbers and its own p-values.
#include <gtest/gtest.h>

#include "engine/record/report.h"
#include "tests/engine/record/record_fixture.h"

namespace seqflow {
namespace report_systems_test {

using testkit::ParseRecord;

// eval.segments and eval.tokens as registered, and eval.compare: f1 and accuracy per system,
// p-values against the first system named p_METRIC.SYSTEM.
constexpr char kKinds[] = R"("kinds": {
  "eval.segments": {"role": "evaluator", "headline": ["f1", "precision", "recall", "accuracy"],
                    "attachments": [{"suffix": "sentences.csv", "type": "sentence_counts"}]},
  "eval.tokens": {"role": "evaluator", "headline": ["accuracy"],
                  "attachments": [{"suffix": "sentences.csv", "type": "sentence_counts"}]},
  "eval.compare": {"role": "evaluator", "headline": ["f1", "accuracy"], "per_system": {"p_prefix": "p_"}},
  "hmm.em": {"role": "trainer"}})";

// The nodes of one run: a trainer (no row), `score` and `tokens` at `f1`, and `compare` of the
// systems "viterbi" (the reference) and "sms", better by 0.05 with p = 0.03.
std::string Nodes(double f1) {
  const std::string x = std::to_string(f1), better = std::to_string(f1 + 0.05);
  return R"("nodes": {"hmm": {"kind": "hmm.em", "status": "computed", "metrics": {"f1": 0.99}},
    "score": {"kind": "eval.segments", "status": "computed", "metrics": {"f1": )" +
         x + R"(, "accuracy": )" + x +
         R"(}},
    "tokens": {"kind": "eval.tokens", "status": "computed", "metrics": {"accuracy": )" +
         x + R"(}},
    "compare": {"kind": "eval.compare", "status": "computed", "metrics": {
      "f1.viterbi": )" +
         x + R"(, "f1.sms": )" + better + R"(, "accuracy.viterbi": )" + x + R"(, "accuracy.sms": )" + better +
         R"(, "p_f1.sms": 0.03, "p_accuracy.sms": 0.5}}})";
}

// Decoders "good" (f1 0.9) and "bad" (0.5), each with `seeds` seeds (repeat axis).
std::string Summary(int seeds) {
  std::string runs;
  for (const auto& [decoder, f1] : {std::pair{"good", 0.9}, std::pair{"bad", 0.5}})
    for (int seed = 1; seed <= seeds; ++seed)
      runs += std::string(runs.empty() ? "" : ",") + R"({"axes": {"decoder": ")" + decoder + R"(", "repeat": ")" +
              std::to_string(seed) + R"("}, )" + Nodes(f1) + "}";
  return R"({"pipeline": "sys", "repeat_axis": "repeat", )" + std::string(kKinds) + R"(, "runs": [)" + runs + "]}";
}

// 40 sentences per run; the runs of "bad" (the second half) miss a segment and a token in each.
SentenceFiles Files(int seeds) {
  SentenceFiles files;
  const size_t runs = 2 * static_cast<size_t>(seeds);
  for (size_t run = 0; run < runs; ++run) {
    const bool bad = run >= runs / 2;
    SentenceStatsTable segments{"g", true, {}}, tokens{"g", false, {}};
    for (int i = 0; i < 40; ++i) {
      segments.sentences.push_back({bad ? 1 : 2, 2, 2, bad ? 4 : 5, 5});
      tokens.sentences.push_back({0, 0, 0, bad ? 4 : 5, 5});
    }
    files[AttachmentPath(run, runs, "score", "sentences.csv")] = FormatSentenceStats(segments);
    files[AttachmentPath(run, runs, "tokens", "sentences.csv")] = FormatSentenceStats(tokens);
  }
  return files;
}

TEST(ReportSystemsTest, OneRowPerSettingAndEvaluatorAndSystemOneColumnPerMetric) {
  const ReportTable t = BuildSystemsReport(ParseRecord(Summary(2)));
  EXPECT_EQ(t.rows_by, ReportRows::kSystems);
  EXPECT_EQ(t.columns, (std::vector<std::string>{"f1", "accuracy"})) << "precision, recall: reported by no run";
  ASSERT_EQ(t.rows.size(), 8u);
  const char* expected[][3] = {
      {"compare", "viterbi", "viterbi"}, {"compare", "sms", "viterbi"}, {"score", "", ""}, {"tokens", "", ""}};
  for (size_t r = 0; r < 8; ++r) {
    EXPECT_EQ(t.rows[r].label, r < 4 ? "decoder=good" : "decoder=bad") << r;
    EXPECT_EQ(t.rows[r].runs, 2u);
    EXPECT_EQ(t.rows[r].node, expected[r % 4][0]) << r;
    EXPECT_EQ(t.rows[r].system, expected[r % 4][1]) << r;
    EXPECT_EQ(t.rows[r].reference, expected[r % 4][2]) << r;
  }
  EXPECT_DOUBLE_EQ(t.rows[1].cells[0]->mean, 0.95);  // good, compare, sms
  EXPECT_EQ(t.rows[1].cells[0]->n, 2u);
  EXPECT_TRUE(t.rows[1].cells[0]->best);
  EXPECT_DOUBLE_EQ(t.rows[2].cells[0]->mean, 0.9);  // good, score
  EXPECT_FALSE(t.rows[3].cells[0].has_value()) << "eval.tokens has no f1";
  EXPECT_DOUBLE_EQ(t.rows[3].cells[1]->mean, 0.9);
  // With repetitions eval.compare's own per-run p-values cannot be combined: none.
  EXPECT_FALSE(t.has_p);
}

TEST(ReportSystemsTest, ASystemGetsItsEvaluatorsPValueAgainstTheReferenceInOneRun) {
  const ReportTable t = BuildSystemsReport(ParseRecord(Summary(1)));
  ASSERT_EQ(t.rows.size(), 8u);
  EXPECT_FALSE(t.rows[0].cells[0]->p.has_value()) << "the reference";
  EXPECT_EQ(t.rows[1].cells[0]->p, 0.03);
  EXPECT_EQ(t.rows[1].cells[1]->p, 0.5);
  EXPECT_TRUE(t.has_p);
  const std::string text = RenderText(t);
  EXPECT_NE(text.find("p of a system: its evaluator's own test against its reference system (ref)"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("p: paired"), std::string::npos) << "no row is tested against the best row\n" << text;
  EXPECT_NE(text.find("viterbi (ref)"), std::string::npos) << text;
  EXPECT_NE(text.find("0.9500* p=0.030†"), std::string::npos) << text;
}

// The p-value of a single-system evaluator's row is against the best row of such evaluators,
// which may be another node of the same run (paired sentence by sentence, seed by seed), not
// against eval.compare's better system, whose sentences the record does not hold.
TEST(ReportSystemsTest, EvaluatorRowsAreTestedAgainstTheBestSingleSystemRow) {
  const ReportTable t = BuildSystemsReport(ParseRecord(Summary(2)), Files(2));
  EXPECT_TRUE(t.has_p);
  const ReportRow &good_score = t.rows[2], &good_tokens = t.rows[3], &bad_score = t.rows[6];
  EXPECT_FALSE(good_score.cells[0]->p.has_value()) << "the reference of f1";
  EXPECT_FALSE(good_score.cells[1]->p.has_value()) << "the reference of accuracy";
  EXPECT_EQ(good_tokens.cells[1]->p, 1.0) << "the same tokens scored by another node";
  ASSERT_TRUE(bad_score.cells[0]->p.has_value());
  EXPECT_LT(*bad_score.cells[0]->p, 0.001);
  EXPECT_FALSE(t.rows[1].cells[0]->p.has_value()) << "a per-system row with repetitions";
  EXPECT_NE(RenderText(t).find("p: paired approximate randomization vs the best single-system row"), std::string::npos);
}

TEST(ReportSystemsTest, RenderingsNameTheNodeAndTheSystem) {
  const std::string json = R"({"pipeline": "one", )" + std::string(kKinds) + R"(, "runs": [{)" + Nodes(0.5) + "}]}";
  const ReportTable t = BuildSystemsReport(ParseRecord(json));
  EXPECT_EQ(RenderMarkdown(t),
            "| run | node | system | n | f1 | accuracy |\n"
            "| --- | --- | --- | ---: | ---: | ---: |\n"
            "| base | compare | viterbi (ref) | 1 | 0.5000 | 0.5000 |\n"
            "| base | compare | sms | 1 | **0.5500** p=0.030† | **0.5500** p=0.500 |\n"
            "| base | score |  | 1 | 0.5000 | 0.5000 |\n"
            "| base | tokens |  | 1 |  | 0.5000 |\n");
  EXPECT_EQ(RenderCsv(t),
            "run,node,system,reference,n,f1,f1.std,f1.n,f1.p,accuracy,accuracy.std,accuracy.n,accuracy.p\n"
            "base,compare,viterbi,viterbi,1,0.5,,1,,0.5,,1,\n"
            "base,compare,sms,viterbi,1,0.55,,1,0.03,0.55,,1,0.5\n"
            "base,score,,,1,0.5,,1,,0.5,,1,\n"
            "base,tokens,,,1,,,,,0.5,,1,\n");
  const std::string text = RenderText(t);
  EXPECT_NE(text.find("run   node     system         n  f1"), std::string::npos) << text;
  EXPECT_NE(text.find("base  compare  viterbi (ref)  1  0.5000"), std::string::npos) << text;
  EXPECT_NE(text.find("base  tokens                  1  -"), std::string::npos) << text;
}

// The settings table shows each system of a per-system evaluator as a column, the reference
// first; its p-values stay in the systems table (they are not against the best row).
TEST(ReportSystemsTest, SettingsTableHasAColumnPerSystem) {
  const ReportTable t = BuildReport(ParseRecord(Summary(1)), Files(1));
  EXPECT_EQ(t.columns,
            (std::vector<std::string>{"compare.f1.viterbi", "compare.f1.sms", "compare.accuracy.viterbi",
                                      "compare.accuracy.sms", "score.f1", "score.accuracy", "tokens.accuracy"}));
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_DOUBLE_EQ(t.rows[0].cells[1]->mean, 0.95);
  EXPECT_TRUE(t.rows[0].cells[1]->best);
  EXPECT_FALSE(t.rows[1].cells[1]->p.has_value());
  EXPECT_TRUE(t.rows[1].cells[4]->p.has_value()) << "score.f1 is still tested";
}

}  // namespace report_systems_test
}  // namespace seqflow

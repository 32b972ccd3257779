// Hand-computed cases for the segment and token scores (the first seven are the cases of
// conlleval.py's --selftest, as fractions).
#include "nodes/eval/segments.h"

#include <gtest/gtest.h>

#include "tests/nodes/eval/eval_fixtures.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace segments_test {

using testutil::TagSeqs;

std::map<std::string, double> Score(const TagSeqs& gold, const TagSeqs& predicted,
                                    TagEncoding encoding = TagEncoding::kIob2) {
  auto g = testutil::GoldCorpus(gold, encoding);
  auto p = testutil::PredictionsOf(predicted, encoding);
  Result<AlignedLabels> aligned = AlignLabels(*g, *p);
  EXPECT_TRUE(aligned.ok()) << aligned.status().ToString();
  Result<SegmentScores> scores = ScoreSegments(*aligned, encoding);
  EXPECT_TRUE(scores.ok()) << scores.status().ToString();
  return SegmentMetrics(*scores);
}

TEST(Segments, Perfect) {
  TagSeqs t = {{"B-NP", "B-VP", "B-NP", "I-NP", "I-NP", "I-NP", "B-VP", "I-VP"}};
  auto m = Score(t, t);
  EXPECT_EQ(m["gold_segments"], 4);
  EXPECT_EQ(m["predicted_segments"], 4);
  EXPECT_EQ(m["correct_segments"], 4);
  EXPECT_EQ(m["f1"], 1.0);
  EXPECT_EQ(m["accuracy"], 1.0);
  EXPECT_EQ(m["sentence_accuracy"], 1.0);
  EXPECT_EQ(m["tokens"], 8);
}

TEST(Segments, Iob2Errors) {
  auto m = Score({{"B-NP", "I-NP", "B-VP", "B-PP", "B-NP", "I-NP", "O"}},
                 {{"B-NP", "B-NP", "B-VP", "B-PP", "I-PP", "B-NP", "O"}});
  EXPECT_EQ(m["gold_segments"], 4);
  EXPECT_EQ(m["predicted_segments"], 5);
  EXPECT_EQ(m["correct_segments"], 1);
  EXPECT_DOUBLE_EQ(m["precision"], 0.2);
  EXPECT_DOUBLE_EQ(m["recall"], 0.25);
  EXPECT_DOUBLE_EQ(m["f1"], 2 * 0.2 * 0.25 / 0.45);
  EXPECT_DOUBLE_EQ(m["accuracy"], 4.0 / 7);
  EXPECT_EQ(m["precision.NP"], 0.0);
  EXPECT_EQ(m["recall.NP"], 0.0);
  EXPECT_EQ(m["f1.VP"], 1.0);
  EXPECT_EQ(m["precision.PP"], 0.0);
  EXPECT_EQ(m["sentence_accuracy"], 0.0);
}

TEST(Segments, TypeChangeAndIAfterOStartChunks) {
  auto m = Score({{"B-NP", "I-NP", "O", "B-VP"}}, {{"I-NP", "I-VP", "O", "I-VP"}});
  EXPECT_EQ(m["gold_segments"], 2);
  EXPECT_EQ(m["predicted_segments"], 3);
  EXPECT_EQ(m["correct_segments"], 1);
  EXPECT_DOUBLE_EQ(m["f1"], 0.4);
  EXPECT_DOUBLE_EQ(m["accuracy"], 0.25);
}

TEST(Segments, Iob1PredictionAgainstIob2Gold) {
  auto m = Score({{"B-NP", "I-NP", "B-NP", "I-NP", "O", "B-PP"}}, {{"I-NP", "I-NP", "B-NP", "I-NP", "O", "I-PP"}},
                 TagEncoding::kIob1);
  EXPECT_EQ(m["gold_segments"], 3);
  EXPECT_EQ(m["predicted_segments"], 3);
  EXPECT_EQ(m["correct_segments"], 3);
  EXPECT_DOUBLE_EQ(m["accuracy"], 4.0 / 6);
}

TEST(Segments, SentenceBoundaryClosesChunks) {
  auto m = Score({{"B-NP"}, {"I-NP"}}, {{"B-NP"}, {"I-NP"}});
  EXPECT_EQ(m["gold_segments"], 2);
  EXPECT_EQ(m["correct_segments"], 2);
  EXPECT_EQ(m["tokens"], 2);
}

TEST(Segments, EndMismatch) {
  auto m = Score({{"B-NP", "I-NP", "I-NP"}}, {{"B-NP", "I-NP", "B-NP"}});
  EXPECT_EQ(m["gold_segments"], 1);
  EXPECT_EQ(m["predicted_segments"], 2);
  EXPECT_EQ(m["correct_segments"], 0);
  EXPECT_EQ(m["f1"], 0.0);
  EXPECT_DOUBLE_EQ(m["accuracy"], 2.0 / 3);
}

TEST(Segments, PerTypeKeysForGoldAndPredictedTypes) {
  auto m = Score({{"B-ADJP", "B-NP"}}, {{"B-ADVP", "B-NP"}});
  EXPECT_DOUBLE_EQ(m["precision"], 0.5);
  EXPECT_DOUBLE_EQ(m["recall"], 0.5);
  EXPECT_EQ(m.at("recall.ADJP"), 0.0);
  EXPECT_EQ(m.at("precision.ADVP"), 0.0);
  EXPECT_EQ(m.at("f1.NP"), 1.0);
  EXPECT_EQ(m.size(), 9u + 3 * 3);
}

TEST(Segments, AllOutside) {
  auto m = Score({{"O", "O"}}, {{"O", "O"}});
  EXPECT_EQ(m["gold_segments"], 0);
  EXPECT_EQ(m["predicted_segments"], 0);
  EXPECT_EQ(m["f1"], 0.0);
  EXPECT_EQ(m["accuracy"], 1.0);
  EXPECT_EQ(m.size(), 9u);
}

TEST(Segments, SentenceAccuracy) {
  auto m = Score({{"B-NP", "O"}, {"O"}, {"B-VP"}}, {{"B-NP", "O"}, {"B-NP"}, {"B-VP"}});
  EXPECT_DOUBLE_EQ(m["sentence_accuracy"], 2.0 / 3);
  EXPECT_DOUBLE_EQ(m["accuracy"], 3.0 / 4);
}

TEST(Segments, RunsAreMaximalRunsOfOneLabel) {
  auto m = Score({{"a", "a", "b", "b", "a"}}, {{"a", "b", "b", "b", "a"}}, TagEncoding::kRuns);
  EXPECT_EQ(m["gold_segments"], 3);       // a[0,1] b[2,3] a[4]
  EXPECT_EQ(m["predicted_segments"], 3);  // a[0] b[1,3] a[4]
  EXPECT_EQ(m["correct_segments"], 1);    // a[4]
  EXPECT_DOUBLE_EQ(m["precision.a"], 0.5);
  EXPECT_DOUBLE_EQ(m["recall.b"], 0.0);
  EXPECT_DOUBLE_EQ(m["accuracy"], 4.0 / 5);  // plain label accuracy
}

TEST(Segments, RunsCountOAsAType) {
  auto m = Score({{"O", "O", "x"}, {"x"}}, {{"O", "O", "x"}, {"x"}}, TagEncoding::kRuns);
  EXPECT_EQ(m["gold_segments"], 3);  // O[0,1] x[2] | x[0]
  EXPECT_EQ(m["correct_segments"], 3);
  EXPECT_EQ(m.at("f1.O"), 1.0);
}

TEST(Segments, NeedAnEncoding) {
  AlignedLabels empty;
  EXPECT_EQ(ScoreSegments(empty, TagEncoding::kNone).status().ToString(),
            "segments need a tag encoding (iob1, iob2 or runs)");
}

TEST(ChunkRules, PrefixesOutsideTheRulesAreOther) {
  EXPECT_EQ(ChunkPrefix("B"), 'B');
  EXPECT_EQ(ChunkPrefix("["), '[');
  EXPECT_EQ(ChunkPrefix("S"), '?');
  EXPECT_EQ(ChunkPrefix("BB"), '?');
  EXPECT_EQ(ChunkPrefix(""), '?');
  EXPECT_TRUE(ChunkStarts({'O', 0}, {'I', 1}));
  EXPECT_TRUE(ChunkEnds({'I', 1}, {'I', 2}));
  EXPECT_FALSE(ChunkEnds({'B', 1}, {'I', 1}));
  EXPECT_TRUE(ChunkEnds({']', 1}, {'I', 1}));
}

TEST(AlignLabels, MatchesNamesNotIds) {
  auto gold = testutil::GoldCorpus({{"B-NP", "O"}}, TagEncoding::kIob2, {"B-NP", "O"});
  auto predicted = testutil::PredictionsOf({{"B-NP", "B-XX"}}, TagEncoding::kIob2, {"B-XX", "O", "B-NP"});
  Result<AlignedLabels> a = AlignLabels(*gold, *predicted);
  ASSERT_OK(a);
  EXPECT_EQ(a->names, (std::vector<std::string>{"B-NP", "O", "B-XX"}));
  EXPECT_EQ(a->gold[0], (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(a->predicted[0], (std::vector<int32_t>{0, 2}));
  TokenScores t = ScoreTokens(*a);
  EXPECT_EQ(t.tokens, 2);
  EXPECT_EQ(t.correct_tokens, 1);
  EXPECT_EQ(t.correct_sentences, 0);
}

TEST(AlignLabels, Errors) {
  auto gold = testutil::GoldCorpus({{"B-NP", "O"}, {"O"}}, TagEncoding::kIob2);
  gold->source = "test.txt";
  EXPECT_EQ(AlignLabels(*gold, *testutil::PredictionsOf({{"O", "O"}}, TagEncoding::kIob2)).status().ToString(),
            "predictions cover 1 sentences, the gold corpus has 2");
  EXPECT_EQ(
      AlignLabels(*gold, *testutil::PredictionsOf({{"O", "O"}, {"O", "O"}}, TagEncoding::kIob2)).status().ToString(),
      "sentence 2: 2 predicted labels for 1 gold tokens");
  auto bad_id = testutil::PredictionsOf({{"O", "O"}, {"O"}}, TagEncoding::kIob2);
  bad_id->labels[0][1] = 5;
  EXPECT_EQ(AlignLabels(*gold, *bad_id).status().ToString(),
            "sentence 1, token 2: predicted label id 5 has no name (1 predicted labels)");
  Corpus unlabeled = *gold;
  unlabeled.label_names.clear();
  EXPECT_EQ(AlignLabels(unlabeled, *bad_id).status().ToString(), "the gold corpus has no labels (test.txt)");
}

}  // namespace segments_test
}  // namespace seqflow

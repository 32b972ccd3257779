// Paired significance tests: exact enumeration against hand-computed p-values, the Monte Carlo
// estimates against the exact values, the extremes (identical systems, a uniformly better
// system), repetitions as strata, and the sentences.csv round trip.
#include "stats/significance.h"

#include <gtest/gtest.h>

#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace significance_test {

constexpr size_t kF1 = 0, kPrecision = 1, kRecall = 2, kAccuracy = 3;

SentenceStats Chunks(int64_t correct, int64_t guessed, int64_t gold) { return {correct, guessed, gold, 0, 0}; }
SentenceStats Tokens(int64_t correct, int64_t total) { return {0, 0, 0, correct, total}; }

SignificanceResult RunTest(const std::vector<PairedScores>& strata, SignificanceOptions options) {
  Result<SignificanceResult> r = PairedSignificance(strata, options);
  EXPECT_OK(r);
  return r.ok() ? *r : SignificanceResult{};
}

SignificanceOptions Exact() {
  SignificanceOptions o;
  o.exact = true;
  return o;
}

SignificanceOptions Bootstrap() {
  SignificanceOptions o;
  o.test = PairedTest::kBootstrap;
  return o;
}

// Accuracy differences per sentence (in correct tokens) d = 3, 1, -2, observed sum 2: of the
// 8 sign patterns only +-+ and -+- give |sum| < 2, so p = 6/8.
PairedScores AccuracyCase() {
  return {{Tokens(3, 3), Tokens(1, 1), Tokens(0, 2)}, {Tokens(0, 3), Tokens(0, 1), Tokens(2, 2)}};
}

// Segments, F1 = 2c / (guessed + gold). A = (c 2, g 3), B = (1, 3), gold 3 each: F1 2/3 vs 1/3.
// Swapping {s3} gives 4/7 vs 2/5 and {s1, s2} the mirror; the other six patterns are at least
// as far apart (swapping {s2, s3} reproduces the observed totals exactly), so p = 6/8; the same
// two patterns tie precision, and recall (c / 3) differs by 1/3 under every pattern: p = 1.
PairedScores SegmentCase() {
  return {{Chunks(1, 1, 1), Chunks(1, 2, 1), Chunks(0, 0, 1)}, {Chunks(0, 1, 1), Chunks(1, 1, 1), Chunks(0, 1, 1)}};
}

TEST(SignificanceTest, ExactEnumerationMatchesHandComputedValues) {
  SignificanceResult acc = RunTest({AccuracyCase()}, Exact());
  EXPECT_EQ(acc.samples, 8);
  EXPECT_DOUBLE_EQ(acc.a[kAccuracy], 4.0 / 6);
  EXPECT_DOUBLE_EQ(acc.b[kAccuracy], 2.0 / 6);
  EXPECT_EQ(acc.p[kAccuracy], 0.75);

  SignificanceResult seg = RunTest({SegmentCase()}, Exact());
  EXPECT_DOUBLE_EQ(seg.a[kF1], 2.0 / 3);
  EXPECT_DOUBLE_EQ(seg.b[kF1], 1.0 / 3);
  EXPECT_EQ(seg.p[kF1], 0.75);
  EXPECT_EQ(seg.p[kPrecision], 0.75);
  EXPECT_EQ(seg.p[kRecall], 1.0);
}

TEST(SignificanceTest, RandomizationEstimatesTheExactValue) {
  SignificanceResult seg = RunTest({SegmentCase()}, {});
  EXPECT_EQ(seg.samples, 10000);
  // Binomial standard error at p = 0.75, R = 10^4 is 0.0043; 0.02 is over 4.5 of them.
  EXPECT_NEAR(seg.p[kF1], 0.75, 0.02);
  EXPECT_NEAR(seg.p[kPrecision], 0.75, 0.02);
  EXPECT_EQ(seg.p[kRecall], 1.0);
  EXPECT_NEAR(RunTest({AccuracyCase()}, {}).p[kAccuracy], 0.75, 0.02);
}

TEST(SignificanceTest, SameSeedSameValueOtherSeedOtherDraws) {
  SignificanceOptions a, b;
  b.shuffle_seed = 2;
  EXPECT_EQ(RunTest({SegmentCase()}, a).p, RunTest({SegmentCase()}, a).p);
  EXPECT_NE(RunTest({SegmentCase()}, a).p[kF1], RunTest({SegmentCase()}, b).p[kF1]);
}

std::vector<SentenceStats> Corpus(int sentences, int64_t wrong_per_sentence) {
  std::vector<SentenceStats> out;
  for (int i = 0; i < sentences; ++i)
    out.push_back({2 - std::min<int64_t>(wrong_per_sentence, 2), 2, 2, 10 - wrong_per_sentence, 10});
  return out;
}

TEST(SignificanceTest, IdenticalSystemsHavePOne) {
  PairedScores same{Corpus(50, 1), Corpus(50, 1)};
  for (const SignificanceOptions& options : {SignificanceOptions{}, Bootstrap()}) {
    SignificanceResult r = RunTest({same}, options);
    for (double p : r.p) EXPECT_EQ(p, 1.0);
  }
  SignificanceResult exact = RunTest({{Corpus(3, 1), Corpus(3, 1)}}, Exact());
  for (double p : exact.p) EXPECT_EQ(p, 1.0);
}

TEST(SignificanceTest, BetterOnEverySentenceIsSignificant) {
  PairedScores better{Corpus(200, 0), Corpus(200, 1)};
  for (const SignificanceOptions& options : {SignificanceOptions{}, Bootstrap()}) {
    SignificanceResult r = RunTest({better}, options);
    EXPECT_GT(r.a[kF1], r.b[kF1]);
    for (size_t k : {kF1, kPrecision, kRecall, kAccuracy}) EXPECT_LT(r.p[k], 0.001) << k;
  }
}

TEST(SignificanceTest, StrataAverageAndSwapOnlyWithinThemselves) {
  // Two repetitions of the accuracy case: the statistic is the mean over repetitions, and the
  // 2^6 patterns factor into the two strata's sums d1 + d2 (each /6), observed 2 + 2.
  SignificanceResult r = RunTest({AccuracyCase(), AccuracyCase()}, Exact());
  EXPECT_EQ(r.samples, 64);
  EXPECT_DOUBLE_EQ(r.a[kAccuracy], 4.0 / 6);
  // Sums of one stratum over its 8 patterns: {2, -4, 0, 6, -6, 0, 4, -2}; |s1 + s2| >= 4 in
  // 38 of the 64 pairs (by hand, row by row: 4, 5, 4, 6, 6, 4, 5, 4).
  EXPECT_EQ(r.p[kAccuracy], 38.0 / 64);
}

TEST(SignificanceTest, InvalidInputs) {
  EXPECT_FALSE(PairedSignificance({}, {}).ok());
  EXPECT_FALSE(PairedSignificance({{Corpus(2, 0), Corpus(3, 0)}}, {}).ok());
  SignificanceOptions none;
  none.samples = 0;
  EXPECT_FALSE(PairedSignificance({AccuracyCase()}, none).ok());
  EXPECT_FALSE(PairedSignificance({{Corpus(25, 0), Corpus(25, 1)}}, Exact()).ok());
  SignificanceOptions exact_bootstrap = Bootstrap();
  exact_bootstrap.exact = true;
  EXPECT_FALSE(PairedSignificance({AccuracyCase()}, exact_bootstrap).ok());
}

TEST(SentenceStatsTest, RoundTripBothLayouts) {
  SentenceStatsTable segments{"0123456789abcdef0123456789abcdef", true, {{1, 2, 3, 4, 5}, {0, 0, 0, 0, 0}}};
  std::string text = FormatSentenceStats(segments);
  EXPECT_EQ(text,
            "# gold 0123456789abcdef0123456789abcdef\ncorrect,guessed,gold,correct_tokens,tokens\n"
            "1,2,3,4,5\n0,0,0,0,0\n");
  Result<SentenceStatsTable> back = ParseSentenceStats(text);
  ASSERT_OK(back);
  EXPECT_EQ(back->gold_fingerprint, segments.gold_fingerprint);
  EXPECT_TRUE(back->segments);
  ASSERT_EQ(back->sentences.size(), 2u);
  EXPECT_EQ(back->sentences[0].gold, 3);
  EXPECT_EQ(back->sentences[0].tokens, 5);

  SentenceStatsTable tokens{"ff", false, {{0, 0, 0, 7, 9}}};
  EXPECT_EQ(FormatSentenceStats(tokens), "# gold ff\ncorrect_tokens,tokens\n7,9\n");
  back = ParseSentenceStats(FormatSentenceStats(tokens));
  ASSERT_OK(back);
  EXPECT_FALSE(back->segments);
  EXPECT_EQ(back->sentences[0].correct_tokens, 7);
  EXPECT_TRUE(back->Supports(Statistic::kAccuracy));
  EXPECT_FALSE(back->Supports(Statistic::kF1));
}

TEST(SentenceStatsTest, MalformedFilesNameTheLine) {
  EXPECT_FALSE(ParseSentenceStats("").ok());
  EXPECT_FALSE(ParseSentenceStats("correct_tokens,tokens\n1,2\n").ok());
  EXPECT_FALSE(ParseSentenceStats("# gold x\nwhat\n").ok());
  Result<SentenceStatsTable> bad = ParseSentenceStats("# gold x\ncorrect_tokens,tokens\n1,2\n1,2,3\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "sentences.csv line 4: expected 2 non-negative integers");
  EXPECT_FALSE(ParseSentenceStats("# gold x\ncorrect_tokens,tokens\n1,-2\n").ok());
}

TEST(StatisticTest, NamesRoundTrip) {
  for (Statistic s : kStatistics) EXPECT_EQ(StatisticNamed(StatisticName(s)), s);
  EXPECT_FALSE(StatisticNamed("sentence_accuracy").has_value());
}

}  // namespace significance_test
}  // namespace seqflow

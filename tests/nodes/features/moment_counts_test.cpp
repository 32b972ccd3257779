// Moment counts against a direct count on a tiny corpus; thread-count invariance; the artifact's
// round trip.
#include "nodes/features/moment_counts.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

#include "nodes/features/moments.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace moment_counts_test {

// M[c, w] counted the obvious way: for every token, its previous and next word feature.
Eigen::MatrixXd DirectCounts(const std::vector<std::vector<int32_t>>& sentences, int32_t v) {
  Eigen::MatrixXd m = Eigen::MatrixXd::Zero(2 * (v + 1), v);
  for (const auto& s : sentences)
    for (size_t t = 0; t < s.size(); ++t) {
      const int32_t prev = t > 0 ? s[t - 1] : v;             // BOS
      const int32_t next = t + 1 < s.size() ? s[t + 1] : v;  // EOS
      m(prev, s[t]) += 1;
      m(v + 1 + next, s[t]) += 1;
    }
  return m;
}

TEST(MomentCounts, MatchTheDirectCountOnATinyCorpus) {
  const std::vector<std::vector<int32_t>> sentences = {{0, 1, 2}, {1, 1}, {2}, {}};
  Result<MomentCounts> m = CollectMomentCounts(sentences, 3, 1, CancelToken());
  ASSERT_OK(m);
  EXPECT_EQ(m->tokens, 6);
  EXPECT_EQ(m->num_contexts(), 8);
  EXPECT_EQ(m->word_counts, Eigen::Vector3d(1, 3, 2));
  EXPECT_EQ(Eigen::MatrixXd(m->cooccurrence), DirectCounts(sentences, 3));
  // Word 1 follows BOS once (sentence 2) and word 0 once; it precedes 2, 1 and EOS.
  EXPECT_EQ(m->cooccurrence.coeff(3, 1), 1);      // prev = BOS
  EXPECT_EQ(m->cooccurrence.coeff(4 + 3, 1), 1);  // next = EOS
  // q̄ (Eq. 6): each token has two features, so q̄ sums to 2.
  EXPECT_NEAR(m->ContextMean().sum(), 2.0, 1e-15);
  EXPECT_NEAR(m->ContextMean()[3], 3.0 / 6, 1e-15);  // 3 sentence starts among 6 tokens
}

TEST(MomentCounts, DoNotDependOnTheThreadCount) {
  std::mt19937_64 rng(2);
  std::uniform_int_distribution<int32_t> word(0, 49), length(0, 30);
  std::vector<std::vector<int32_t>> sentences(10000);
  for (auto& s : sentences) {
    s.resize(static_cast<size_t>(length(rng)));
    for (auto& w : s) w = word(rng);
  }
  Result<MomentCounts> one = CollectMomentCounts(sentences, 50, 1, CancelToken());
  Result<MomentCounts> two = CollectMomentCounts(sentences, 50, 2, CancelToken());
  ASSERT_OK(one);
  ASSERT_OK(two);
  EXPECT_EQ(Eigen::MatrixXd(one->cooccurrence), Eigen::MatrixXd(two->cooccurrence));
  EXPECT_EQ(Eigen::MatrixXd(one->cooccurrence), DirectCounts(sentences, 50));
  EXPECT_EQ(one->word_counts, two->word_counts);
}

// Many symbols, so the keys' radix sort takes two digits of the context and two of the symbol
// (11 bits a digit): every (context, word) count against a direct count in a map.
TEST(MomentCounts, MatchTheDirectCountWithManySymbols) {
  constexpr int32_t v = 100000;
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<int32_t> word(0, v - 1), length(1, 30);
  std::vector<std::vector<int32_t>> sentences(5000);
  std::map<std::pair<int32_t, int32_t>, double> direct;
  for (auto& s : sentences) {
    s.resize(static_cast<size_t>(length(rng)));
    // Half the tokens from 300 words, so pairs repeat.
    for (auto& w : s) w = rng() % 2 ? word(rng) : v - 1 - word(rng) % 300;
    for (size_t t = 0; t < s.size(); ++t) {
      direct[{t > 0 ? s[t - 1] : v, s[t]}] += 1;
      direct[{v + 1 + (t + 1 < s.size() ? s[t + 1] : v), s[t]}] += 1;
    }
  }
  Result<MomentCounts> m = CollectMomentCounts(sentences, v, 1, CancelToken());
  ASSERT_OK(m);
  ASSERT_EQ(m->cooccurrence.nonZeros(), static_cast<Eigen::Index>(direct.size()));
  for (const auto& [key, count] : direct) EXPECT_EQ(m->cooccurrence.coeff(key.first, key.second), count);
}

TEST(MomentCounts, Errors) {
  EXPECT_EQ(CollectMomentCounts({{0, 3}}, 3, 1, CancelToken()).status().ToString(),
            "sentence 1 token 2: symbol 3 outside [0, 3)");
  EXPECT_FALSE(CollectMomentCounts({{0}}, 0, 1, CancelToken()).ok());
  std::atomic<bool> flag{true};
  EXPECT_EQ(CollectMomentCounts({{0}}, 1, 1, CancelToken(&flag)).status().code(), StatusCode::kCancelled);
}

TEST(MomentsArtifact, RoundTripsBitExactAndRejectsTruncation) {
  Moments m;
  m.vocab = std::make_shared<Vocab>(std::vector<std::string>{"a", "b"}, UnknownScheme::kSingle, false);
  m.counts = *CollectMomentCounts({{0, 1, 2}, {2, 2}}, m.vocab->size(), 1, CancelToken());
  ByteWriter w;
  m.Save(w);
  ByteReader r(w.bytes());
  auto back = Moments::Load(r);
  r.ExpectEnd();
  EXPECT_EQ(back->counts.tokens, 5);
  EXPECT_EQ(back->counts.word_counts, m.counts.word_counts);
  EXPECT_EQ(Eigen::MatrixXd(back->counts.cooccurrence), Eigen::MatrixXd(m.counts.cooccurrence));
  EXPECT_EQ(back->vocab->words(), m.vocab->words());
  std::string cut = w.bytes().substr(0, w.bytes().size() - 3);
  ByteReader truncated(cut);
  EXPECT_THROW(Moments::Load(truncated), StatusError);
}

}  // namespace moment_counts_test
}  // namespace seqflow

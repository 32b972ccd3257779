// Viterbi against brute-force enumeration of all K^T labellings, tie-breaking, impossible
// sentences, a long sentence, and the lane-batched corpus path against the single-sentence path.
#include "nodes/hmm/viterbi.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tests/testutil/hmm_brute_force.h"

namespace seqflow {
namespace viterbi_test {

using testutil::EnumerateHmm;
using testutil::RandomCorpus;
using testutil::RandomHmm;

double PathLogProb(const HmmParams& hmm, const std::vector<int32_t>& x, const std::vector<int32_t>& y) {
  double lp = std::log(hmm.initial[y[0]]) + std::log(hmm.emission(y[0], x[0]));
  for (size_t t = 1; t < x.size(); ++t) {
    lp += std::log(hmm.transition(y[t - 1], y[t])) + std::log(hmm.emission(y[t], x[t]));
  }
  return lp;
}

TEST(Viterbi, MatchesBruteForcePathAndScore) {
  uint64_t seed = 100;
  for (int K = 1; K <= 3; ++K) {
    for (int V = 1; V <= 4; ++V) {
      for (int T = 1; T <= 4; ++T) {
        for (int rep = 0; rep < 3; ++rep, ++seed) {
          const HmmParams hmm = RandomHmm(K, V, seed);
          const auto x = RandomCorpus(1, T, T, V, seed)[0];
          const auto want = EnumerateHmm(hmm, x);
          double score = 0;
          EXPECT_EQ(Viterbi(hmm, x, &score), want.best_path) << "K=" << K << " V=" << V << " T=" << T;
          EXPECT_NEAR(score, want.best_log_prob, 1e-12);
        }
      }
    }
  }
}

TEST(Viterbi, SparseTransitionsMatchBruteForce) {
  for (uint64_t seed = 0; seed < 20; ++seed) {
    HmmParams hmm = RandomHmm(3, 4, seed);
    hmm.transition(seed % 3, (seed + 1) % 3) = 0;  // one forbidden move, rows renormalised
    hmm.transition.row(seed % 3) /= hmm.transition.row(seed % 3).sum();
    const auto x = RandomCorpus(1, 4, 4, 4, seed)[0];
    const auto want = EnumerateHmm(hmm, x);
    double score = 0;
    EXPECT_EQ(Viterbi(hmm, x, &score), want.best_path);
    EXPECT_NEAR(score, want.best_log_prob, 1e-12);
  }
}

TEST(Viterbi, TiesBreakTowardLowerStates) {
  HmmParams hmm;
  hmm.initial = Eigen::VectorXd::Constant(3, 1.0 / 3);
  hmm.transition = Eigen::MatrixXd::Constant(3, 3, 1.0 / 3);
  hmm.emission = Eigen::MatrixXd::Constant(3, 2, 0.5);
  const std::vector<int32_t> x = {0, 1, 1, 0, 1};
  EXPECT_EQ(Viterbi(hmm, x), std::vector<int32_t>(5, 0));
  // States 1 and 2 tie everywhere, state 0 cannot emit symbol 1.
  hmm.emission.row(0) << 1.0, 0.0;
  hmm.emission.row(1) << 0.5, 0.5;
  hmm.emission.row(2) << 0.5, 0.5;
  EXPECT_EQ(Viterbi(hmm, std::vector<int32_t>{1, 1}), (std::vector<int32_t>{1, 1}));
  EXPECT_EQ(ViterbiCorpus(hmm, {{1, 1}, {0, 1, 0}}, 1), (std::vector<std::vector<int32_t>>{{1, 1}, {0, 1, 0}}));
}

TEST(Viterbi, ImpossibleSentenceGivesMinusInfinityAndZeroPath) {
  HmmParams hmm;
  hmm.initial = Eigen::Vector2d(0.6, 0.4);
  hmm.transition.resize(2, 2);
  hmm.transition << 1.0, 0.0, 0.5, 0.5;
  hmm.emission.resize(2, 3);
  hmm.emission << 1.0, 0.0, 0.0, 0.0, 1.0, 0.0;
  double score = 0;
  EXPECT_EQ(Viterbi(hmm, std::vector<int32_t>{0, 1}, &score), (std::vector<int32_t>{0, 0}));
  EXPECT_EQ(score, -std::numeric_limits<double>::infinity());
  EXPECT_EQ(Viterbi(hmm, std::vector<int32_t>{1, 1, 0}, &score), (std::vector<int32_t>{1, 1, 0}));
  EXPECT_NEAR(score, std::log(0.4 * 0.5 * 0.5), 1e-15);
}

TEST(Viterbi, LongSentenceScoreIsItsPathsLogProbability) {
  const HmmParams hmm = RandomHmm(5, 1000, 21);
  const auto x = RandomCorpus(1, 2000, 2000, 1000, 21)[0];
  double score = 0;
  const auto path = Viterbi(hmm, x, &score);
  ASSERT_EQ(path.size(), x.size());
  EXPECT_TRUE(std::isfinite(score));
  EXPECT_LT(score, -10000);
  EXPECT_NEAR(score, PathLogProb(hmm, x, path), 1e-9 * std::abs(score));
  // A one-state change anywhere can only lower the score.
  for (size_t t : {size_t{0}, size_t{999}, size_t{1999}}) {
    auto other = path;
    other[t] = (other[t] + 1) % 5;
    EXPECT_LE(PathLogProb(hmm, x, other), score);
  }
}

TEST(Viterbi, CorpusEqualsSingleSentenceForAnyThreadCount) {
  const HmmParams hmm = RandomHmm(12, 80, 8);
  auto corpus = RandomCorpus(300, 1, 50, 80, 8);
  corpus[10].clear();
  corpus.push_back({});
  const auto one = ViterbiCorpus(hmm, corpus, 1);
  ASSERT_EQ(one.size(), corpus.size());
  for (size_t s = 0; s < corpus.size(); ++s) {
    const auto want = corpus[s].empty() ? std::vector<int32_t>{} : Viterbi(hmm, corpus[s]);
    EXPECT_EQ(one[s], want) << "sentence " << s;
  }
  EXPECT_EQ(ViterbiCorpus(hmm, corpus, 2), one);
  EXPECT_EQ(ViterbiCorpus(hmm, corpus, 4), one);
}

TEST(Viterbi, CorpusMatchesBruteForce) {
  // Many tiny sentences through the corpus path (float lanes with certificate, double fallback).
  for (int K = 1; K <= 3; ++K) {
    const HmmParams hmm = RandomHmm(K, 4, 300 + K);
    const auto corpus = RandomCorpus(100, 1, 4, 4, 300 + K);
    const auto paths = ViterbiCorpus(hmm, corpus, 2);
    for (size_t s = 0; s < corpus.size(); ++s) EXPECT_EQ(paths[s], EnumerateHmm(hmm, corpus[s]).best_path);
  }
}

TEST(Viterbi, CorpusWithManyStatesEqualsSingleSentence) {
  // The float backtrack reads log A columns by a two-register permute up to K = 31 (K = 23 uses
  // both registers) and by transposes beyond (K = 40).
  for (int K : {23, 40}) {
    const HmmParams hmm = RandomHmm(K, 200, 9);
    auto corpus = RandomCorpus(100, 1, 40, 200, 9);
    corpus.push_back(RandomCorpus(1, 2000, 2000, 200, 10)[0]);  // too long to certify in float
    const auto paths = ViterbiCorpus(hmm, corpus, 2);
    for (size_t s = 0; s < corpus.size(); ++s) EXPECT_EQ(paths[s], Viterbi(hmm, corpus[s])) << "K=" << K << " s=" << s;
  }
}

// Parameters within `spread` of uniform: path scores differ near or below float resolution, so
// float decisions are often wrong and only the certificate keeps the corpus paths equal to the
// double ones.
TEST(Viterbi, CertificateRejectsDecisionsNearFloatResolution) {
  for (double spread : {1e-4, 1e-5, 1e-6, 1e-7}) {
    HmmParams hmm = RandomHmm(12, 30, 77);
    auto flatten = [spread](Eigen::MatrixXd m) {
      m = (1.0 + spread * m.array()).matrix();
      for (Eigen::Index r = 0; r < m.rows(); ++r) m.row(r) /= m.row(r).sum();
      return m;
    };
    hmm.initial = flatten(hmm.initial.transpose()).transpose();
    hmm.transition = flatten(hmm.transition);
    hmm.emission = flatten(hmm.emission);
    const auto corpus = RandomCorpus(200, 5, 30, 30, 77);
    const auto paths = ViterbiCorpus(hmm, corpus, 1);
    int wrong = 0;
    for (size_t s = 0; s < corpus.size(); ++s) wrong += paths[s] != Viterbi(hmm, corpus[s]);
    EXPECT_EQ(wrong, 0) << "spread " << spread;
  }
}

// Over 1000 steps float errors reach ~1e-3 nats, and some decisions of these sentences are closer
// than that: a certificate without the error bound (margin > 0) gets 2 of them wrong.
TEST(Viterbi, CertificateCoversErrorsOfLongSentences) {
  const HmmParams hmm = RandomHmm(12, 30, 5);
  const auto corpus = RandomCorpus(64, 1000, 1000, 30, 5);
  const auto paths = ViterbiCorpus(hmm, corpus, 2);
  for (size_t s = 0; s < corpus.size(); ++s) EXPECT_EQ(paths[s], Viterbi(hmm, corpus[s])) << "sentence " << s;
}

// Two states whose log probabilities differ by ~4e-10: distinct in double, equal in float (the
// float kernel's certificate is tested in tests/nodes/chain/viterbi_lanes_test.cpp).
TEST(Viterbi, NearTiesBelowFloatPrecisionAreDecodedInDouble) {
  HmmParams hmm;
  hmm.initial = Eigen::Vector2d(0.5 - 1e-10, 0.5 + 1e-10);
  hmm.transition = Eigen::Matrix2d::Constant(0.5);
  hmm.emission = Eigen::MatrixXd::Constant(2, 3, 1.0 / 3);
  const std::vector<std::vector<int32_t>> corpus = {{0}, {1, 2}};
  EXPECT_EQ(Viterbi(hmm, corpus[0]), std::vector<int32_t>{1});
  EXPECT_EQ(ViterbiCorpus(hmm, corpus, 1), (std::vector<std::vector<int32_t>>{{1}, {1, 0}}));
}

}  // namespace viterbi_test
}  // namespace seqflow

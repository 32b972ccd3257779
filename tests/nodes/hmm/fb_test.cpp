// Forward-backward against brute-force enumeration of all K^T labellings, plus the numerical
// edge cases (zero-probability sentences, long sentences) and the corpus paths (lane batches,
// thread-count independence).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "nodes/common/log_sum_exp.h"
#include "nodes/hmm/forward_backward.h"
#include "tests/testutil/hmm_brute_force.h"

namespace seqflow {
namespace fb_test {

using testutil::EnumerateHmm;
using testutil::RandomCorpus;
using testutil::RandomHmm;

constexpr double kTol = 1e-12;
constexpr double kInf = std::numeric_limits<double>::infinity();

void ExpectNear(const Eigen::MatrixXd& got, const Eigen::MatrixXd& want, double tol, const char* what) {
  ASSERT_EQ(got.rows(), want.rows()) << what;
  ASSERT_EQ(got.cols(), want.cols()) << what;
  if (got.size() == 0) return;
  EXPECT_LE((got - want).cwiseAbs().maxCoeff(), tol) << what << "\ngot\n" << got << "\nwant\n" << want;
}

// Every tiny configuration: K <= 3 states, V <= 4 symbols, T <= 4, several seeds.
struct Tiny {
  HmmParams hmm;
  std::vector<int32_t> x;
};
std::vector<Tiny> TinyCases() {
  std::vector<Tiny> cases;
  uint64_t seed = 1;
  for (int K = 1; K <= 3; ++K) {
    for (int V = 1; V <= 4; ++V) {
      for (int T = 1; T <= 4; ++T) {
        for (int rep = 0; rep < 3; ++rep, ++seed) {
          cases.push_back({RandomHmm(K, V, seed), RandomCorpus(1, T, T, V, seed)[0]});
        }
      }
    }
  }
  return cases;
}

TEST(ForwardBackward, MatchesBruteForceLikelihoodAndPosteriors) {
  for (const Tiny& c : TinyCases()) {
    const auto want = EnumerateHmm(c.hmm, c.x);
    Eigen::MatrixXd gamma;
    const double ll = ForwardBackward(c.hmm, c.x, &gamma);
    EXPECT_NEAR(ll, want.log_likelihood(), kTol);
    ExpectNear(gamma, want.gamma, kTol, "gamma");
  }
}

TEST(ForwardBackward, WeightedExpectedCountsMatchBruteForce) {
  const double weight = 0.7;
  for (const Tiny& c : TinyCases()) {
    const int K = c.hmm.num_states(), V = c.hmm.num_symbols();
    const auto want = EnumerateHmm(c.hmm, c.x);
    ExpectedCounts counts = ExpectedCounts::Zero(K, V);
    const double ll = AccumulateExpectedCounts(c.hmm, c.x, weight, &counts);
    EXPECT_NEAR(ll, want.log_likelihood(), kTol);
    EXPECT_NEAR(counts.log_likelihood, want.log_likelihood(), kTol);  // unweighted
    EXPECT_EQ(counts.tokens, static_cast<int64_t>(c.x.size()));
    ExpectNear(counts.initial, weight * want.initial, kTol, "initial");
    ExpectNear(counts.transition, weight * want.transition, kTol, "transition");
    ExpectNear(counts.emission, weight * want.emission, kTol, "emission");
  }
}

TEST(ForwardBackward, CountsAccumulateOntoExistingCounts) {
  const HmmParams hmm = RandomHmm(3, 4, 99);
  const auto corpus = RandomCorpus(2, 3, 4, 4, 99);
  ExpectedCounts counts = ExpectedCounts::Zero(3, 4);
  AccumulateExpectedCounts(hmm, corpus[0], 1.0, &counts);
  AccumulateExpectedCounts(hmm, corpus[1], 2.0, &counts);
  const auto a = EnumerateHmm(hmm, corpus[0]), b = EnumerateHmm(hmm, corpus[1]);
  ExpectNear(counts.transition, a.transition + 2.0 * b.transition, kTol, "transition");
  ExpectNear(counts.emission, a.emission + 2.0 * b.emission, kTol, "emission");
  EXPECT_NEAR(counts.log_likelihood, a.log_likelihood() + b.log_likelihood(), kTol);
  EXPECT_EQ(counts.tokens, static_cast<int64_t>(corpus[0].size() + corpus[1].size()));
}

TEST(ForwardBackward, PosteriorDecodeIsArgmaxOfBruteForceMarginals) {
  for (const Tiny& c : TinyCases()) {
    const auto want = EnumerateHmm(c.hmm, c.x);
    const std::vector<int32_t> labels = PosteriorDecode(c.hmm, c.x);
    ASSERT_EQ(labels.size(), c.x.size());
    for (size_t t = 0; t < c.x.size(); ++t) {
      Eigen::Index best = 0;
      want.gamma.row(t).maxCoeff(&best);
      EXPECT_EQ(labels[t], best) << "t = " << t;
    }
  }
}

TEST(ForwardBackward, CorpusCountsMatchBruteForceSums) {
  const HmmParams hmm = RandomHmm(3, 4, 7);
  auto corpus = RandomCorpus(40, 1, 4, 4, 7);                 // 40 sentences: five lane batches, mixed lengths
  corpus.insert(corpus.begin() + 5, std::vector<int32_t>{});  // empty sentences are skipped
  ExpectedCounts want = ExpectedCounts::Zero(3, 4);
  for (const auto& x : corpus) {
    if (x.empty()) continue;
    const auto b = EnumerateHmm(hmm, x);
    want.initial += b.initial;
    want.transition += b.transition;
    want.emission += b.emission;
    want.log_likelihood += b.log_likelihood();
    want.tokens += static_cast<int64_t>(x.size());
  }
  const ExpectedCounts got = CorpusExpectedCounts(hmm, corpus, 2);
  ExpectNear(got.initial, want.initial, 1e-11, "initial");
  ExpectNear(got.transition, want.transition, 1e-11, "transition");
  ExpectNear(got.emission, want.emission, 1e-11, "emission");
  EXPECT_NEAR(got.log_likelihood, want.log_likelihood, 1e-10);
  EXPECT_EQ(got.tokens, want.tokens);
}

// State 0 emits only symbol 0, state 1 only symbol 1, and 0 never moves to 1: x = (0, 1) is
// impossible, while (1, 0) and the symbol 2 no state emits test the two other ways to fail.
HmmParams BlockedHmm() {
  HmmParams hmm;
  hmm.initial = Eigen::Vector2d(0.6, 0.4);
  hmm.transition.resize(2, 2);
  hmm.transition << 1.0, 0.0, 0.5, 0.5;
  hmm.emission.resize(2, 3);
  hmm.emission << 1.0, 0.0, 0.0, 0.0, 1.0, 0.0;
  return hmm;
}

TEST(ForwardBackward, ZeroProbabilitySentenceGivesMinusInfinityAndNoCounts) {
  const HmmParams hmm = BlockedHmm();
  for (const std::vector<int32_t>& x :
       {std::vector<int32_t>{0, 1}, std::vector<int32_t>{2}, std::vector<int32_t>{1, 2, 0}}) {
    EXPECT_EQ(EnumerateHmm(hmm, x).likelihood, 0.0);
    Eigen::MatrixXd gamma;
    EXPECT_EQ(ForwardBackward(hmm, x, &gamma), -kInf);
    ExpectNear(gamma, Eigen::MatrixXd::Zero(x.size(), 2), 0.0, "gamma");
    ExpectedCounts counts = ExpectedCounts::Zero(2, 3);
    EXPECT_EQ(AccumulateExpectedCounts(hmm, x, 1.0, &counts), -kInf);
    EXPECT_TRUE(counts.initial.isZero(0) && counts.transition.isZero(0) && counts.emission.isZero(0));
  }
  // A possible sentence in the same corpus keeps its counts exactly.
  const std::vector<std::vector<int32_t>> corpus = {{1, 0, 0}, {0, 1}, {1, 1, 0, 0}, {2}};
  const ExpectedCounts got = CorpusExpectedCounts(hmm, corpus, 1);
  ExpectedCounts want = ExpectedCounts::Zero(2, 3);
  AccumulateExpectedCounts(hmm, corpus[0], 1.0, &want);
  AccumulateExpectedCounts(hmm, corpus[2], 1.0, &want);
  EXPECT_EQ(got.log_likelihood, -kInf);
  EXPECT_EQ(got.tokens, 10);
  EXPECT_TRUE(got.emission.allFinite() && got.transition.allFinite());
  ExpectNear(got.transition, want.transition, kTol, "transition");
  ExpectNear(got.emission, want.emission, kTol, "emission");
  EXPECT_NEAR(EnumerateHmm(hmm, corpus[2]).log_likelihood(), ForwardBackward(hmm, corpus[2], nullptr), kTol);
}

// log p(x) by a log-space forward pass: slow, but no scaling to get wrong.
double LogSpaceForward(const HmmParams& hmm, const std::vector<int32_t>& x) {
  const int K = hmm.num_states();
  Eigen::ArrayXd la = hmm.initial.array().log() + hmm.emission.col(x[0]).array().log();
  const Eigen::ArrayXXd log_a = hmm.transition.array().log();
  for (size_t t = 1; t < x.size(); ++t) {
    Eigen::ArrayXd next(K);
    for (int j = 0; j < K; ++j) next[j] = LogSumExp(la + log_a.col(j)) + std::log(hmm.emission(j, x[t]));
    la = next;
  }
  return LogSumExp(la);
}

TEST(ForwardBackward, LongSentenceDoesNotUnderflow) {
  const HmmParams hmm = RandomHmm(5, 1000, 11);
  const auto x = RandomCorpus(1, 2000, 2000, 1000, 11)[0];  // p(x) ~ 1e-6000
  Eigen::MatrixXd gamma;
  const double ll = ForwardBackward(hmm, x, &gamma);
  const double want = LogSpaceForward(hmm, x);
  EXPECT_LT(want, -10000);
  EXPECT_NEAR(ll, want, 1e-9 * std::abs(want));
  ASSERT_TRUE(gamma.allFinite());
  EXPECT_LE((gamma.rowwise().sum().array() - 1.0).abs().maxCoeff(), 1e-12);
  ExpectedCounts counts = ExpectedCounts::Zero(5, 1000);
  AccumulateExpectedCounts(hmm, x, 1.0, &counts);
  EXPECT_NEAR(counts.transition.sum(), 1999.0, 1e-9);
  EXPECT_NEAR(counts.emission.sum(), 2000.0, 1e-9);
  const ExpectedCounts corpus = CorpusExpectedCounts(hmm, {x}, 1);
  ExpectNear(corpus.transition, counts.transition, 1e-10, "transition");
}

TEST(ForwardBackward, CorpusCountsAreBitIdenticalAcrossThreadCounts) {
  const HmmParams hmm = RandomHmm(12, 300, 5);
  const auto corpus = RandomCorpus(1000, 1, 40, 300, 5);  // 16 shards
  const ExpectedCounts one = CorpusExpectedCounts(hmm, corpus, 1);
  for (int threads : {2, 4}) {
    const ExpectedCounts many = CorpusExpectedCounts(hmm, corpus, threads);
    EXPECT_TRUE(many.initial == one.initial) << threads;
    EXPECT_TRUE(many.transition == one.transition) << threads;
    EXPECT_TRUE(many.emission == one.emission) << threads;
    EXPECT_EQ(many.log_likelihood, one.log_likelihood) << threads;
    EXPECT_EQ(many.tokens, one.tokens) << threads;
  }
}

// Mixed lengths (and empty sentences) put short and long sentences in one lane batch.
std::vector<std::vector<int32_t>> MixedCorpus(int V, uint64_t seed) {
  auto corpus = RandomCorpus(150, 1, 60, V, seed);
  corpus[3].clear();
  corpus[77].clear();
  corpus.push_back({});
  return corpus;
}

TEST(ForwardBackward, LaneBatchedCorpusEqualsSingleSentencePath) {
  const HmmParams hmm = RandomHmm(19, 50, 3);  // 19 = 8 + 8 + 3: full and partial state blocks
  const auto corpus = MixedCorpus(50, 3);
  ExpectedCounts single = ExpectedCounts::Zero(19, 50);
  for (const auto& x : corpus) {
    if (!x.empty()) AccumulateExpectedCounts(hmm, x, 1.0, &single);
  }
  const ExpectedCounts batched = CorpusExpectedCounts(hmm, corpus, 2);
  ExpectNear(batched.initial, single.initial, 1e-12, "initial");
  ExpectNear(batched.transition, single.transition, 1e-12 * single.transition.maxCoeff(), "transition");
  ExpectNear(batched.emission, single.emission, 1e-12 * single.emission.maxCoeff(), "emission");
  EXPECT_NEAR(batched.log_likelihood, single.log_likelihood, 1e-12 * std::abs(single.log_likelihood));
  EXPECT_EQ(batched.tokens, single.tokens);
}

TEST(ForwardBackward, PosteriorDecodeCorpusEqualsSingleSentencePath) {
  const HmmParams hmm = RandomHmm(7, 50, 4);
  const auto corpus = MixedCorpus(50, 4);
  std::vector<Eigen::MatrixXd> gammas;
  const auto labels = PosteriorDecodeCorpus(hmm, corpus, 2, &gammas);
  ASSERT_EQ(labels.size(), corpus.size());
  ASSERT_EQ(gammas.size(), corpus.size());
  for (size_t s = 0; s < corpus.size(); ++s) {
    Eigen::MatrixXd gamma;
    const auto want = corpus[s].empty() ? std::vector<int32_t>{} : PosteriorDecode(hmm, corpus[s], &gamma);
    if (corpus[s].empty()) gamma.resize(0, 7);
    EXPECT_EQ(labels[s], want) << "sentence " << s;
    ExpectNear(gammas[s], gamma, 1e-12, "gamma");
  }
  EXPECT_EQ(PosteriorDecodeCorpus(hmm, corpus, 1, nullptr), labels);
}

TEST(ExpectedCounts, AddScalesCountsButNotLikelihoodOrTokens) {
  ExpectedCounts a = ExpectedCounts::Zero(2, 3), b = ExpectedCounts::Zero(2, 3);
  b.initial.setConstant(1);
  b.transition.setConstant(2);
  b.emission.setConstant(3);
  b.log_likelihood = -4;
  b.tokens = 5;
  a.Add(b, 0.5);
  a.Add(b);
  EXPECT_EQ(a.initial, Eigen::VectorXd::Constant(2, 1.5));
  EXPECT_EQ(a.transition, Eigen::MatrixXd::Constant(2, 2, 3.0));
  EXPECT_EQ(a.emission, Eigen::MatrixXd::Constant(2, 3, 4.5));
  EXPECT_EQ(a.log_likelihood, -8);
  EXPECT_EQ(a.tokens, 10);
}

}  // namespace fb_test
}  // namespace seqflow

// Count covariances (dense Z-table and matrix-free tangent products) against enumeration of all
// labellings on tiny HMMs, for every choice of free blocks; plus long sentences, thread-count
// independence, sentences of probability zero, and the counts construction keeps.
#include "nodes/homotopy/count_covariance.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "nodes/hmm/forward_backward.h"
#include "tests/nodes/homotopy/homotopy_testutil.h"

namespace seqflow {
namespace count_covariance_test {

using testutil::BruteForceCorpusCovariance;
using testutil::BruteForceCovariance;
using testutil::RandomCorpus;
using testutil::RandomHmm;

constexpr double kTol = 1e-11;

const std::vector<FreeBlocks>& AllFreeChoices() {
  static const std::vector<FreeBlocks> choices = {
      {true, true, true}, {true, false, true}, {false, false, true}, {false, true, false}, {true, false, false}};
  return choices;
}

std::string Describe(const FreeBlocks& f) {
  return std::string("free: initial=") + (f.initial ? "1" : "0") + " transition=" + (f.transition ? "1" : "0") +
         " emission=" + (f.emission ? "1" : "0");
}

double MaxAbs(const Eigen::MatrixXd& m) { return m.size() == 0 ? 0.0 : m.cwiseAbs().maxCoeff(); }

// Every tiny case: K <= 3, V <= 4, T <= 4.
template <class Body>
void ForEachTinyCase(Body body) {
  uint64_t seed = 100;
  for (int K = 1; K <= 3; ++K) {
    for (int V = 1; V <= 4; ++V) {
      for (int T = 1; T <= 4; ++T, ++seed) {
        body(RandomHmm(K, V, seed), RandomCorpus(1, T, T, V, seed)[0]);
      }
    }
  }
}

// What construction keeps from the chain library's forward-backward: counts, log P(x), entropy.
TEST(CountCovariance, CountsLikelihoodAndEntropyMatchBruteForce) {
  ForEachTinyCase([](const HmmParams& hmm, const std::vector<int32_t>& x) {
    const auto want = testutil::EnumerateHmm(hmm, x);
    const PomLayout layout(hmm.num_states(), hmm.num_symbols(), FreeBlocks{true, true, true});
    const IdSentences corpus = {x};
    const CountCovariance cov(layout, hmm, corpus, 1);
    EXPECT_NEAR(cov.log_likelihood(), want.log_likelihood(), kTol);
    const Eigen::VectorXd counts = layout.Gather(want.initial, want.transition, want.emission);
    EXPECT_LE(MaxAbs(cov.expected_counts() - counts), kTol);
    EXPECT_NEAR(cov.mean_token_entropy(), testutil::BruteForceMeanEntropy(hmm, {x}), kTol);
  });
}

TEST(CountCovariance, DenseMatchesBruteForceOnEveryEntry) {
  for (const FreeBlocks& free : AllFreeChoices()) {
    ForEachTinyCase([&](const HmmParams& hmm, const std::vector<int32_t>& x) {
      const PomLayout layout(hmm.num_states(), hmm.num_symbols(), free);
      const IdSentences corpus = {x};
      const CountCovariance cov(layout, hmm, corpus, 1);
      const Eigen::MatrixXd want = BruteForceCovariance(layout, hmm, x);
      EXPECT_LE(MaxAbs(cov.Dense() - want), kTol)
          << Describe(free) << " K=" << hmm.num_states() << " T=" << x.size() << "\nwant\n"
          << want;
    });
  }
}

TEST(CountCovariance, MatrixFreeProductMatchesBruteForce) {
  for (const FreeBlocks& free : AllFreeChoices()) {
    ForEachTinyCase([&](const HmmParams& hmm, const std::vector<int32_t>& x) {
      const PomLayout layout(hmm.num_states(), hmm.num_symbols(), free);
      const IdSentences corpus = {x};
      const CountCovariance cov(layout, hmm, corpus, 1);
      const Eigen::VectorXd u = Eigen::VectorXd::LinSpaced(layout.num_params(), -1.0, 2.0);
      const Eigen::VectorXd want = BruteForceCovariance(layout, hmm, x) * u;
      EXPECT_LE(MaxAbs(cov.Apply(u) - want), kTol) << Describe(free) << " K=" << hmm.num_states();
    });
  }
}

TEST(CountCovariance, CorpusSumMatchesBruteForceAndExpectedCounts) {
  const HmmParams hmm = RandomHmm(3, 4, 7);
  const IdSentences corpus = RandomCorpus(20, 1, 4, 4, 8);
  for (const FreeBlocks& free : AllFreeChoices()) {
    const PomLayout layout(3, 4, free);
    const CountCovariance cov(layout, hmm, corpus, 2);
    const Eigen::MatrixXd want = BruteForceCorpusCovariance(layout, hmm, corpus);
    EXPECT_LE(MaxAbs(cov.Dense() - want), 1e-10) << Describe(free);
    const Eigen::VectorXd u = Eigen::VectorXd::LinSpaced(layout.num_params(), 1.0, -3.0);
    EXPECT_LE(MaxAbs(cov.Apply(u) - want * u), 1e-10) << Describe(free);
    const ExpectedCounts counts = CorpusExpectedCounts(hmm, corpus, 1);
    EXPECT_LE(MaxAbs(cov.expected_counts() - layout.Gather(counts)), 1e-11);
    EXPECT_NEAR(cov.log_likelihood(), counts.log_likelihood, 1e-10);
  }
}

// Beyond brute force: the two algorithms are independent, so agreement on long sentences checks
// the Z-table's cross-position terms and the tangent recurrences where T is large.
TEST(CountCovariance, DenseAndMatrixFreeAgreeOnLongSentences) {
  const HmmParams hmm = RandomHmm(3, 5, 11, 0.1);
  const IdSentences corpus = RandomCorpus(6, 30, 60, 5, 12);
  for (const FreeBlocks& free : AllFreeChoices()) {
    const PomLayout layout(3, 5, free);
    const CountCovariance cov(layout, hmm, corpus, 1);
    const Eigen::MatrixXd dense = cov.Dense();
    EXPECT_LE(MaxAbs(dense - dense.transpose()), 1e-9);
    EXPECT_GE(Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(dense).eigenvalues().minCoeff(), -1e-8);
    for (int k = 0; k < 3; ++k) {
      const Eigen::VectorXd u = Eigen::VectorXd::LinSpaced(layout.num_params(), -1.0 - k, 1.0 + 2 * k);
      const Eigen::VectorXd want = dense * u;
      EXPECT_LE(MaxAbs(cov.Apply(u) - want), 1e-9 * (1 + MaxAbs(want))) << Describe(free);
    }
  }
}

TEST(CountCovariance, NoUnderflowOnVeryLongSentences) {
  const HmmParams hmm = RandomHmm(3, 50, 21, 0.05);
  const IdSentences corpus = RandomCorpus(2, 3000, 3000, 50, 22);
  const PomLayout layout(3, 50, FreeBlocks{true, true, true});
  const CountCovariance cov(layout, hmm, corpus, 1);
  EXPECT_TRUE(std::isfinite(cov.log_likelihood()));
  EXPECT_LT(cov.log_likelihood(), -1000.0);  // P(x) itself underflows a double
  const Eigen::VectorXd u = Eigen::VectorXd::Ones(layout.num_params());
  EXPECT_TRUE(cov.Apply(u).allFinite());
}

TEST(CountCovariance, ResultsDoNotDependOnThreadCount) {
  const HmmParams hmm = RandomHmm(3, 6, 31, 0.1);
  const IdSentences corpus = RandomCorpus(150, 1, 12, 6, 32);
  const PomLayout layout(3, 6, FreeBlocks{true, true, true});
  const Eigen::VectorXd u = Eigen::VectorXd::LinSpaced(layout.num_params(), -2.0, 1.0);
  const CountCovariance one(layout, hmm, corpus, 1);
  const CountCovariance two(layout, hmm, corpus, 2);
  const CountCovariance all(layout, hmm, corpus, 0);
  EXPECT_EQ(one.expected_counts(), two.expected_counts());
  EXPECT_EQ(one.mean_token_entropy(), all.mean_token_entropy());
  EXPECT_EQ(one.Apply(u), two.Apply(u));
  EXPECT_EQ(one.Apply(u), all.Apply(u));
  EXPECT_EQ(one.Dense(), two.Dense());
}

// Sentences of probability zero (a symbol no state emits) add nothing but their -inf to log P(U),
// in the lanes of the matrix-free product as in the dense sum, for any thread count.
TEST(CountCovariance, DeadSentencesAddNothing) {
  HmmParams hmm = RandomHmm(4, 9, 81, 0.3);
  hmm.emission.col(8).setZero();
  hmm.emission.array().colwise() /= hmm.emission.rowwise().sum().array();
  IdSentences corpus = RandomCorpus(150, 1, 25, 8, 82);
  IdSentences with_dead = corpus;
  with_dead[7] = {1, 8, 2};
  corpus.erase(corpus.begin() + 7);
  for (const FreeBlocks& free : AllFreeChoices()) {
    const PomLayout layout(4, 9, free);
    const CountCovariance live(layout, hmm, corpus, 1);
    const CountCovariance one(layout, hmm, with_dead, 1);
    const CountCovariance two(layout, hmm, with_dead, 2);
    EXPECT_EQ(one.log_likelihood(), -std::numeric_limits<double>::infinity());
    const Eigen::VectorXd u = Eigen::VectorXd::LinSpaced(layout.num_params(), -2.0, 1.0);
    const Eigen::VectorXd got = one.Apply(u);
    EXPECT_EQ(got, two.Apply(u));
    EXPECT_TRUE(got.allFinite());
    const Eigen::VectorXd want = live.Apply(u);
    EXPECT_LE(MaxAbs(got - want), 1e-12 * (1 + MaxAbs(want))) << Describe(free);
    EXPECT_LE(MaxAbs(one.Dense() - live.Dense()), 1e-12 * (1 + MaxAbs(live.Dense()))) << Describe(free);
    EXPECT_LE(MaxAbs(one.expected_counts() - live.expected_counts()), 1e-12 * corpus.size()) << Describe(free);
  }
}

TEST(CountCovariance, EmptySentencesAreSkipped) {
  const HmmParams hmm = RandomHmm(2, 3, 41);
  const IdSentences with_empty = {{0, 1}, {}, {2}};
  const IdSentences without = {{0, 1}, {2}};
  const PomLayout layout(2, 3, FreeBlocks{true, true, true});
  const CountCovariance a(layout, hmm, with_empty, 1);
  const CountCovariance b(layout, hmm, without, 1);
  EXPECT_LE(MaxAbs(a.Dense() - b.Dense()), 1e-15);
  EXPECT_LE(MaxAbs(a.expected_counts() - b.expected_counts()), 1e-15);
}

}  // namespace count_covariance_test
}  // namespace seqflow

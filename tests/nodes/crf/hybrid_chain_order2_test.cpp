// The hybrid chain with second-order experts (hybrid_chain.h: trigram rows) against enumeration
// of all K^T labellings: the merged potentials, R's log-partition, marginals and expected HMM
// counts, one expert's log-partition, and the conditional log-likelihood with its γ-gradient
// (against central finite differences). Expert 0 is second-order, expert 1 first-order (its
// bigrams repeated for every first tag), so a mixed pool is covered.
#include <gtest/gtest.h>

#include <random>

#include "nodes/crf/hybrid_chain.h"
#include "tests/nodes/crf/random_theta.h"
#include "tests/testutil/hmm_brute_force.h"
#include "tests/testutil/second_order_brute_force.h"

namespace seqflow {
namespace hybrid_chain_order2_test {

constexpr int kK = 3, kI = 2, kJ = 2;

struct Problem {
  HybridCorpus corpus;
  ExpertTransitions experts;  // [I] trigram rows (K+1) K x K
  GenerativeParams theta;
  Eigen::VectorXd gamma;
  std::vector<int64_t> vocabulary{4, 5};
};

Problem MakeProblem(uint32_t seed, int num_sentences) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal(0, 1.2);
  std::uniform_int_distribution<int> length(1, 5), label(0, kK - 1);
  std::uniform_real_distribution<double> gamma(0.05, 1.0);
  Problem s;
  s.corpus.num_labels = kK;
  s.corpus.offsets = {0};
  for (int n = 0; n < num_sentences; ++n) s.corpus.offsets.push_back(s.corpus.offsets.back() + length(rng));
  const int64_t tokens = s.corpus.num_tokens();
  for (int i = 0; i < kI; ++i) {
    RowMatrixXf scores(tokens, kK);
    for (Eigen::Index c = 0; c < scores.size(); ++c) scores.data()[c] = static_cast<float>(normal(rng));
    s.corpus.expert_scores.push_back(scores);
  }
  RowMatrixXd g((kK + 1) * kK, kK), a(kK, kK);
  for (Eigen::Index c = 0; c < g.size(); ++c) g.data()[c] = normal(rng);
  for (Eigen::Index c = 0; c < a.size(); ++c) a.data()[c] = normal(rng);
  s.experts = {g, a.replicate(kK + 1, 1)};
  s.corpus.symbols.resize(tokens, kJ);
  for (int64_t t = 0; t < tokens; ++t)
    for (int j = 0; j < kJ; ++j)
      s.corpus.symbols(t, j) = std::uniform_int_distribution<int>(0, static_cast<int>(s.vocabulary[j]) - 1)(rng);
  for (int64_t t = 0; t < tokens; ++t) s.corpus.labels.push_back(label(rng));
  s.theta = testutil::RandomTheta(s.vocabulary, kK, rng);
  s.gamma.resize(kI + kJ);
  for (int m = 0; m < kI + kJ; ++m) s.gamma[m] = gamma(rng);
  return s;
}

Eigen::VectorXd Flat(const RowMatrixXd& m) { return Eigen::Map<const Eigen::VectorXd>(m.data(), m.size()); }

// γ·φ of labelling y of sentence n from the raw parameters.
double RawScore(const Problem& s, size_t n, const std::vector<int32_t>& y) {
  const int64_t b = s.corpus.offsets[n];
  double total = 0;
  for (size_t t = 0; t < y.size(); ++t) {
    for (int i = 0; i < kI; ++i) {
      total += s.gamma[i] * static_cast<double>(s.corpus.expert_scores[i](b + t, y[t]));
      if (t > 0) total += s.gamma[i] * s.experts[i]((t == 1 ? kK : y[t - 2]) * kK + y[t - 1], y[t]);
    }
    for (int j = 0; j < kJ; ++j) {
      total += s.gamma[kI + j] * s.theta.log_emission[j](s.corpus.symbols(b + t, j), y[t]);
      total += s.gamma[kI + j] * (t == 0 ? s.theta.log_initial[j][y[0]] : s.theta.log_transition[j](y[t - 1], y[t]));
    }
  }
  return total;
}

TEST(HybridChainOrder2, MergedPotentialsReproduceEveryLabellingScore) {
  const Problem s = MakeProblem(1, 6);
  const RowMatrixXd transition = HybridTransition(s.experts, s.theta, s.gamma);
  ASSERT_EQ(transition.rows(), (kK + 1) * kK);
  for (size_t n = 0; n < s.corpus.num_sentences(); ++n) {
    RowMatrixXd scores;
    HybridScores(s.corpus, n, s.theta, s.gamma, scores);
    std::vector<int32_t> y(scores.rows(), 0);
    do EXPECT_NEAR(SecondOrderScore(scores, Flat(transition), y), RawScore(s, n, y), 1e-12);
    while (testutil::NextLabelling(&y, kK));
  }
}

TEST(HybridChainOrder2, ExpectedCountsAndLogPartitionMatchEnumeration) {
  const Problem s = MakeProblem(2, 9);
  const Eigen::VectorXd g = Flat(HybridTransition(s.experts, s.theta, s.gamma));
  GenerativeCounts want;
  want.initial = Eigen::VectorXd::Zero(kK);
  want.transition = RowMatrixXd::Zero(kK, kK);
  for (int64_t v : s.vocabulary) want.emission.push_back(RowMatrixXd::Zero(v, kK));
  double log_z = 0, expert_log_z = 0;
  for (size_t n = 0; n < s.corpus.num_sentences(); ++n) {
    RowMatrixXd scores;
    HybridScores(s.corpus, n, s.theta, s.gamma, scores);
    const testutil::SecondOrderBruteForce r = testutil::EnumerateSecondOrder(scores, g);
    log_z += r.log_z;
    want.initial += r.marginals.row(0).transpose();
    for (int a = 0; a <= kK; ++a) {
      want.transition += Eigen::Map<const RowMatrixXd>(r.trigrams.data() + a * kK * kK, kK, kK);
    }
    const int64_t b = s.corpus.offsets[n];
    for (Eigen::Index t = 0; t < scores.rows(); ++t)
      for (int j = 0; j < kJ; ++j) want.emission[j].row(s.corpus.symbols(b + t, j)) += r.marginals.row(t);
    const RowMatrixXd expert = s.corpus.expert_scores[0].middleRows(b, scores.rows()).cast<double>();
    expert_log_z += testutil::EnumerateSecondOrder(expert, Flat(s.experts[0])).log_z;
  }
  for (int threads : {1, 3}) {
    GenerativeCounts got;
    EXPECT_NEAR(HybridExpectedCounts(s.corpus, s.experts, s.theta, s.gamma, threads, got), log_z, 1e-10);
    EXPECT_LT((got.initial - want.initial).cwiseAbs().maxCoeff(), 1e-10);
    EXPECT_LT((got.transition - want.transition).cwiseAbs().maxCoeff(), 1e-10);
    for (int j = 0; j < kJ; ++j) EXPECT_LT((got.emission[j] - want.emission[j]).cwiseAbs().maxCoeff(), 1e-10);
    EXPECT_NEAR(ExpertLogPartition(s.corpus, s.experts[0], 0, threads), expert_log_z, 1e-10);
  }
}

TEST(HybridChainOrder2, ConditionalLikelihoodAndGammaGradient) {
  const Problem s = MakeProblem(3, 10);
  const Eigen::VectorXd g = Flat(HybridTransition(s.experts, s.theta, s.gamma));
  double want = 0;
  for (size_t n = 0; n < s.corpus.num_sentences(); ++n) {
    RowMatrixXd scores;
    HybridScores(s.corpus, n, s.theta, s.gamma, scores);
    const std::vector<int32_t> gold(s.corpus.labels.begin() + s.corpus.offsets[n],
                                    s.corpus.labels.begin() + s.corpus.offsets[n + 1]);
    want += SecondOrderScore(scores, g, gold) - testutil::EnumerateSecondOrder(scores, g).log_z;
  }
  Eigen::VectorXd gradient;
  EXPECT_NEAR(HybridConditionalLogLikelihood(s.corpus, s.experts, s.theta, s.gamma, 2, &gradient), want, 1e-10);
  ASSERT_EQ(gradient.size(), kI + kJ);
  const double h = 1e-6;
  for (int m = 0; m < kI + kJ; ++m) {
    Eigen::VectorXd plus = s.gamma, minus = s.gamma;
    plus[m] += h;
    minus[m] -= h;
    const double numeric = (HybridConditionalLogLikelihood(s.corpus, s.experts, s.theta, plus, 1, nullptr) -
                            HybridConditionalLogLikelihood(s.corpus, s.experts, s.theta, minus, 1, nullptr)) /
                           (2 * h);
    EXPECT_NEAR(gradient[m], numeric, 1e-6 * std::max(1.0, std::abs(numeric))) << "model " << m;
  }
}

}  // namespace hybrid_chain_order2_test
}  // namespace seqflow

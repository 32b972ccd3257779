// The HMM classifier's kernels against enumeration of all state sequences: class likelihoods and
// posteriors (Eq. 11–12), EM_0 and EM_1 (Eq. 13–16); their Jacobians against central finite
// differences; supervised training lands on a fixed point of EM_0; thread-count invariance.
#include "nodes/hmm/classifier_em.h"

#include <gtest/gtest.h>
#include <oneapi/tbb/task_arena.h>

#include <cmath>
#include <utility>

#include "engine/base/isa.h"
#include "nodes/hmm/classifier_training.h"
#include "nodes/hmm/forward_backward.h"
#include "nodes/hmm/hmm_classifier.h"
#include "tests/testutil/hmm_brute_force.h"

namespace seqflow {
namespace classifier_em_test {

using testutil::EnumerateHmm;
using testutil::RandomCorpus;
using testutil::RandomHmm;

constexpr int kClasses = 2, kStates = 2, kSymbols = 3;

HmmClassifier RandomClassifier(uint64_t seed) {
  HmmClassifier m;
  m.prior = Eigen::Vector2d(0.35, 0.65);
  for (int y = 0; y < kClasses; ++y) m.classes.push_back(RandomHmm(kStates, kSymbols, seed + y, 0.1));
  return m;
}

// Two classes of K states over V symbols with priors w.
HmmClassifier RandomTwoClasses(int K, int V, uint64_t seed, const Eigen::Vector2d& w) {
  HmmClassifier m;
  m.prior = w;
  for (int y = 0; y < 2; ++y) m.classes.push_back(RandomHmm(K, V, seed + y, 0.1));
  return m;
}

ClassifierData TinyData() {
  ClassifierData d;
  d.labeled = RandomCorpus(5, 1, 4, kSymbols, 11);
  d.labels = {0, 1, 1, 0, 1};
  d.unlabeled = RandomCorpus(7, 1, 4, kSymbols, 12);
  return d;
}

// Brute-force posteriors p(y | x) and the EM terms by enumeration.
struct BruteEm {
  Eigen::VectorXd em0, em1;
  Eigen::MatrixXd posteriors;
};

Eigen::VectorXd StackCounts(const testutil::HmmBruteForce& b) {
  Eigen::VectorXd v(kStates + kStates * kStates + kStates * kSymbols);
  v.head(kStates) = b.initial;
  for (int i = 0; i < kStates; ++i) {
    v.segment(kStates + i * kStates, kStates) = b.transition.row(i).transpose();
    v.segment(kStates + kStates * kStates + i * kSymbols, kSymbols) = b.emission.row(i).transpose();
  }
  return v;
}

BruteEm Enumerate(const ClassifierLayout& layout, const HmmClassifier& m, const ClassifierData& d, double eps) {
  const int D = layout.block_size() - 1;
  BruteEm b;
  b.em0 = Eigen::VectorXd::Constant(layout.num_params(), eps);
  for (size_t i = 0; i < d.labeled.size(); ++i) {
    const int y = d.labels[i];
    b.em0[layout.prior_index(y)] += 1;
    b.em0.segment(layout.prior_index(y) + 1, D) += StackCounts(EnumerateHmm(m.classes[y], d.labeled[i]));
  }
  b.em0 /= static_cast<double>(d.labeled.size());
  b.em1 = Eigen::VectorXd::Constant(layout.num_params(), eps);
  b.posteriors.resize(d.unlabeled.size(), kClasses);
  for (size_t j = 0; j < d.unlabeled.size(); ++j) {
    Eigen::VectorXd joint(kClasses);
    std::vector<testutil::HmmBruteForce> per_class;
    for (int y = 0; y < kClasses; ++y) {
      per_class.push_back(EnumerateHmm(m.classes[y], d.unlabeled[j]));
      joint[y] = m.prior[y] * per_class[y].likelihood;
    }
    const Eigen::VectorXd r = joint / joint.sum();
    b.posteriors.row(j) = r.transpose();
    for (int y = 0; y < kClasses; ++y) {
      b.em1[layout.prior_index(y)] += r[y];
      b.em1.segment(layout.prior_index(y) + 1, D) += r[y] * StackCounts(per_class[y]);
    }
  }
  b.em1 /= static_cast<double>(d.unlabeled.size());
  return b;
}

TEST(HmmClassifier, LikelihoodsAndPosteriorsMatchEnumeration) {
  const HmmClassifier m = RandomClassifier(3);
  const SymbolSequences xs = RandomCorpus(9, 1, 5, kSymbols, 4);
  const Eigen::MatrixXd ll = ClassLogLikelihoods(m, xs, 1);
  const Eigen::MatrixXd post = ValueOrThrow(ClassPosteriors(m.prior, ll));
  for (size_t i = 0; i < xs.size(); ++i) {
    Eigen::VectorXd joint(kClasses);
    for (int y = 0; y < kClasses; ++y) {
      const double p = EnumerateHmm(m.classes[y], xs[i]).likelihood;
      EXPECT_NEAR(ll(i, y), std::log(p), 1e-12);
      joint[y] = m.prior[y] * p;
    }
    for (int y = 0; y < kClasses; ++y) EXPECT_NEAR(post(i, y), joint[y] / joint.sum(), 1e-13);
  }
  EXPECT_EQ(ArgmaxClasses(Eigen::MatrixXd(Eigen::RowVector2d(0.4, 0.6)))[0], 1);
  EXPECT_NEAR(MeanClassEntropy(Eigen::MatrixXd(Eigen::RowVector2d(0.5, 0.5))), std::log(2.0), 1e-15);
}

TEST(HmmClassifier, LayoutRoundTripsAndRejectsANonPositiveSum) {
  const ClassifierLayout layout(kClasses, kStates, kSymbols);
  const HmmClassifier m = RandomClassifier(5);
  const Eigen::VectorXd theta = layout.Stack(m);
  EXPECT_EQ(theta.size(), 2 * (1 + 2 + 4 + 6));
  const HmmClassifier back = ValueOrThrow(layout.Normalize(3.0 * theta));
  EXPECT_LE((layout.Stack(back) - theta).cwiseAbs().maxCoeff(), 1e-15);
  Eigen::VectorXd bad = theta;
  bad.segment(layout.emission_offset(1), kSymbols).setZero();
  EXPECT_EQ(layout.Normalize(bad).status().code(), StatusCode::kNumerical);
}

TEST(ClassifierEm, Em0AndEm1MatchEnumeration) {
  const ClassifierLayout layout(kClasses, kStates, kSymbols);
  const HmmClassifier m = RandomClassifier(7);
  const ClassifierData d = TinyData();
  const BruteEm want = Enumerate(layout, m, d, 0.01);
  // Θ̃ unnormalised (a multiple of Θ): the operator sees only Θ.
  const ClassifierEmValue got =
      ValueOrThrow(EvaluateClassifierEm(layout, 2.5 * layout.Stack(m), d, ClassifierEmOptions{0.01, true, true, 1}));
  EXPECT_LE((got.em0 - want.em0).cwiseAbs().maxCoeff(), 1e-13);
  EXPECT_LE((got.em1 - want.em1).cwiseAbs().maxCoeff(), 1e-13);
  EXPECT_LE((got.unlabeled_posteriors - want.posteriors).cwiseAbs().maxCoeff(), 1e-13);
  // The value-only pass gives the same numbers.
  const ClassifierEmValue plain =
      ValueOrThrow(EvaluateClassifierEm(layout, 2.5 * layout.Stack(m), d, ClassifierEmOptions{0.01, false, true, 1}));
  EXPECT_LE((plain.em1 - got.em1).cwiseAbs().maxCoeff(), 1e-15);
  EXPECT_EQ(plain.em1_jacobian.size(), 0);
}

// The Jacobians at an unnormalised Θ̃ with uneven row sums (so the normalisation's chain rule is
// exercised) against central differences of EM_0 and EM_1, to `tolerance` times the largest entry
// (at least 1: the difference quotient's error grows with the counts a long sequence brings).
void ExpectJacobiansMatchCentralDifferences(const ClassifierLayout& layout, const HmmClassifier& model,
                                            const ClassifierData& d, double tolerance = 1e-8) {
  Eigen::VectorXd theta = layout.Stack(model);
  for (Eigen::Index k = 0; k < theta.size(); ++k) theta[k] *= 1.0 + 0.3 * std::sin(1.7 * static_cast<double>(k));
  const ClassifierEmValue at =
      ValueOrThrow(EvaluateClassifierEm(layout, theta, d, ClassifierEmOptions{0.01, true, true, 1}));
  const double h = 1e-6;
  double worst0 = 0, worst1 = 0, scale = 0;
  for (Eigen::Index k = 0; k < theta.size(); ++k) {
    Eigen::VectorXd plus = theta, minus = theta;
    plus[k] += h;
    minus[k] -= h;
    const ClassifierEmOptions o{0.01, false, true, 1};
    const ClassifierEmValue p = ValueOrThrow(EvaluateClassifierEm(layout, plus, d, o));
    const ClassifierEmValue m = ValueOrThrow(EvaluateClassifierEm(layout, minus, d, o));
    worst0 = std::max(worst0, ((p.em0 - m.em0) / (2 * h) - at.em0_jacobian.col(k)).cwiseAbs().maxCoeff());
    worst1 = std::max(worst1, ((p.em1 - m.em1) / (2 * h) - at.em1_jacobian.col(k)).cwiseAbs().maxCoeff());
    scale = std::max(scale, at.em1_jacobian.col(k).cwiseAbs().maxCoeff());
  }
  // std::max and maxCoeff pass a NaN over: the Jacobians must be finite first.
  EXPECT_TRUE(at.em0_jacobian.allFinite());
  EXPECT_TRUE(at.em1_jacobian.allFinite());
  EXPECT_GT(scale, 0.1);
  EXPECT_LE(worst0, tolerance * std::max(1.0, scale)) << "scale " << scale;
  EXPECT_LE(worst1, tolerance * std::max(1.0, scale)) << "scale " << scale;
}

TEST(ClassifierEm, JacobiansMatchCentralDifferences) {
  ExpectJacobiansMatchCentralDifferences(ClassifierLayout(kClasses, kStates, kSymbols), RandomClassifier(9),
                                         TinyData());
}

// With D = 26 (2 states, 10 symbols) a sequence of few distinct symbols is differentiated with
// respect to the parameters it reads only (16 or 24 derivatives instead of 32), one with all ten
// with respect to all D: both kinds of sequence in both terms.
ClassifierData FewAndManySymbols(int V, int unlabeled, uint64_t seed) {
  ClassifierData d;
  d.labeled = RandomCorpus(6, 1, 4, V, seed);
  std::vector<int32_t> every_symbol;
  for (int v = 0; v < V; ++v) every_symbol.push_back((3 * v) % V);
  d.labeled.push_back(every_symbol);
  d.labels = {0, 1, 1, 0, 1, 0, 1};
  d.unlabeled = RandomCorpus(unlabeled, 1, 9, V, seed + 1);
  d.unlabeled.push_back(every_symbol);
  return d;
}

TEST(ClassifierEm, JacobiansMatchCentralDifferencesWithTheReadParametersOnly) {
  const int V = 10;
  HmmClassifier m;
  m.prior = Eigen::Vector2d(0.45, 0.55);
  for (int y = 0; y < 2; ++y) m.classes.push_back(RandomHmm(2, V, 50 + y, 0.1));
  ExpectJacobiansMatchCentralDifferences(ClassifierLayout(2, 2, V), m, FewAndManySymbols(V, 12, 51));
}

// EM_1 and the posteriors at Θ = model against the chain library's posteriors and expected
// counts (hmm/), for any number of states and symbols.
void ExpectEm1MatchesHmmCounts(const ClassifierLayout& layout, const HmmClassifier& m, const ClassifierData& d) {
  const int K = layout.num_states(), V = layout.num_symbols();
  const double eps = 0.01;
  const ClassifierEmValue got = ValueOrThrow(EvaluateClassifierEm(layout, layout.Stack(m), d, {eps, true, true, 1}));
  const Eigen::MatrixXd post =
      ValueOrThrow(ClassPosteriors(m.prior, ClassLogLikelihoods(m, d.unlabeled, 1)));
  const int D = layout.block_size() - 1;
  Eigen::VectorXd want = Eigen::VectorXd::Constant(layout.num_params(), eps);
  for (size_t j = 0; j < d.unlabeled.size(); ++j) {
    for (int y = 0; y < layout.num_classes(); ++y) {
      ExpectedCounts c = ExpectedCounts::Zero(K, V);
      AccumulateExpectedCounts(m.classes[y], d.unlabeled[j], 1.0, &c);
      Eigen::VectorXd stacked(D);
      stacked.head(K) = c.initial;
      for (int i = 0; i < K; ++i) {
        stacked.segment(K + i * K, K) = c.transition.row(i).transpose();
        stacked.segment(K + K * K + i * V, V) = c.emission.row(i).transpose();
      }
      want[layout.prior_index(y)] += post(j, y);
      want.segment(layout.prior_index(y) + 1, D) += post(j, y) * stacked;
    }
  }
  want /= static_cast<double>(d.unlabeled.size());
  EXPECT_LE((got.em1 - want).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LE((got.unlabeled_posteriors - post).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_TRUE(std::isfinite(got.unlabeled_log_likelihood));
}

// Sequences of 400 symbols have p(x | θ) near 3^-400 = 1e-191, below what the unscaled recurrences
// take (1/p² must stay finite): they go through the scaled ones, short ones beside them through
// the unscaled. EM_1 against hmm/'s counts, and both Jacobians against central differences.
TEST(ClassifierEm, LongSequencesTakeTheScaledRecurrencesWithTheSameResults) {
  const ClassifierLayout layout(kClasses, kStates, kSymbols);
  const HmmClassifier m = RandomClassifier(17);
  ClassifierData d = TinyData();
  const SymbolSequences long_ones = RandomCorpus(2, 400, 400, kSymbols, 18);
  d.unlabeled.insert(d.unlabeled.begin() + 2, long_ones.begin(), long_ones.end());
  d.labeled.push_back(long_ones[0]);
  d.labels.push_back(1);
  const Eigen::MatrixXd long_ll = ClassLogLikelihoods(m, long_ones, 1);
  EXPECT_LT(long_ll.maxCoeff(), std::log(1e-150));  // past the unscaled recurrences' range
  ExpectEm1MatchesHmmCounts(layout, m, d);
  ExpectJacobiansMatchCentralDifferences(layout, m, d);
}

// The unscaled recurrences are compiled for K = 2 apart (classifier_em.cpp); 3 states take the
// runtime-K ones, long sequences the scaled ones.
TEST(ClassifierEm, ThreeStatesMatchHmmCountsAndCentralDifferences) {
  const int K = 3, V = 4;
  const ClassifierLayout layout(2, K, V);
  const HmmClassifier m = RandomTwoClasses(K, V, 70, Eigen::Vector2d(0.4, 0.6));
  ClassifierData d;
  d.labeled = RandomCorpus(5, 1, 6, V, 72);
  d.labels = {0, 1, 0, 1, 1};
  d.unlabeled = RandomCorpus(9, 1, 7, V, 73);
  const SymbolSequences long_ones = RandomCorpus(1, 300, 300, V, 74);
  d.unlabeled.push_back(long_ones[0]);
  ExpectEm1MatchesHmmCounts(layout, m, d);
  ExpectJacobiansMatchCentralDifferences(layout, m, d);
}

TEST(ClassifierEm, ThreadCountDoesNotChangeTheResult) {
  const ClassifierLayout layout(kClasses, kStates, kSymbols);
  ClassifierData d;
  d.labeled = RandomCorpus(80, 1, 6, kSymbols, 21);
  for (size_t i = 0; i < d.labeled.size(); ++i) d.labels.push_back(static_cast<int32_t>(i % 2));
  d.unlabeled = RandomCorpus(150, 1, 6, kSymbols, 22);
  const Eigen::VectorXd theta = layout.Stack(RandomClassifier(13));
  const ClassifierEmValue one = ValueOrThrow(EvaluateClassifierEm(layout, theta, d, {0.01, true, true, 1}));
  const ClassifierEmValue two = ValueOrThrow(EvaluateClassifierEm(layout, theta, d, {0.01, true, true, 2}));
  EXPECT_EQ(one.em1, two.em1);
  EXPECT_EQ(one.em1_jacobian, two.em1_jacobian);
  EXPECT_EQ(one.em0_jacobian, two.em0_jacobian);
}

// 300 sequences of few and of all symbols in 10 shards, on 2 and 3 threads: the same bits as one.
TEST(ClassifierEm, ThreadCountDoesNotChangeTheResultOnManyShards) {
  const int V = 10;
  const ClassifierLayout layout(2, 2, V);
  HmmClassifier m;
  m.prior = Eigen::Vector2d(0.45, 0.55);
  for (int y = 0; y < 2; ++y) m.classes.push_back(RandomHmm(2, V, 60 + y, 0.1));
  const ClassifierData d = FewAndManySymbols(V, 300, 61);
  const Eigen::VectorXd theta = layout.Stack(m);
  const ClassifierEmValue one = ValueOrThrow(EvaluateClassifierEm(layout, theta, d, {0.01, true, true, 1}));
  tbb::task_arena arena(3);
  arena.execute([&] {
    for (int threads : {2, 3}) {
      const ClassifierEmValue many = ValueOrThrow(EvaluateClassifierEm(layout, theta, d, {0.01, true, true, threads}));
      EXPECT_TRUE(one.em1 == many.em1) << threads;
      EXPECT_TRUE(one.em1_jacobian == many.em1_jacobian) << threads;
      EXPECT_TRUE(one.em0_jacobian == many.em0_jacobian) << threads;
    }
  });
}

// Baum-Welch per class with ε keeps Θ = Normalize(EM_0(Θ)); the kept restart is the best one.
TEST(ClassifierTraining, BestRestartIsAFixedPointOfEm0) {
  const ClassifierLayout layout(kClasses, kStates, kSymbols);
  ClassifierData d;
  d.labeled = RandomCorpus(40, 3, 6, kSymbols, 32);
  for (size_t i = 0; i < d.labeled.size(); ++i) d.labels.push_back(static_cast<int32_t>(i % 3 == 0));
  ClassifierTrainOptions o;
  o.num_states = kStates;
  o.restarts = 4;
  o.smoothing = 0.01;
  o.tol = 1e-15;  // EM's linear convergence: the objective's change bounds the distance loosely
  o.max_iterations = 20000;
  const ClassifierTrainResult r = ValueOrThrow(TrainHmmClassifier(d.labeled, d.labels, kClasses, kSymbols, o));
  const Eigen::VectorXd theta = layout.Stack(r.model);
  ClassifierEmOptions eo;
  eo.need_em1 = false;
  const ClassifierEmValue e = ValueOrThrow(EvaluateClassifierEm(layout, theta, d, eo));
  const Eigen::VectorXd again = layout.Stack(ValueOrThrow(layout.Normalize(e.em0)));
  EXPECT_LE((again - theta).cwiseAbs().maxCoeff(), 1e-7);
  for (int y = 0; y < kClasses; ++y)
    for (double objective : r.restart_objectives[y])
      EXPECT_LE(objective, r.restart_objectives[y][r.best_restart[y]]);
  // Same seed, same model.
  const ClassifierTrainResult again_r = ValueOrThrow(TrainHmmClassifier(d.labeled, d.labels, kClasses, kSymbols, o));
  EXPECT_EQ(layout.Stack(again_r.model), theta);
}

TEST(ClassifierTraining, ClassWithoutLabeledSequenceIsInvalid) {
  const SymbolSequences xs = RandomCorpus(4, 2, 3, kSymbols, 41);
  const Result<ClassifierTrainResult> r = TrainHmmClassifier(xs, {0, 0, 0, 0}, 2, kSymbols, {});
  EXPECT_EQ(r.status().code(), StatusCode::kInvalid);
}

// The dual passes are compiled per instruction set (engine/base/isa.h) with duals of each one's
// register width: every variant this CPU runs gives the baseline's bits, for a number of
// derivatives D in each of the dual sizes (16, 32, 64 and the largest).
TEST(ClassifierEm, EveryInstructionSetVariantGivesTheSameBits) {
  for (auto [K, V] : {std::pair{2, 5}, std::pair{2, 10}, std::pair{3, 15}, std::pair{3, 25}}) {
    SCOPED_TRACE(testing::Message() << "K " << K << ", V " << V);
    const ClassifierLayout layout(2, K, V);
    const HmmClassifier m = RandomTwoClasses(K, V, 30, Eigen::Vector2d(0.4, 0.6));
    ClassifierData d;
    d.labeled = RandomCorpus(6, 2, 9, V, 31);
    d.labels = {0, 1, 0, 1, 1, 0};
    d.unlabeled = RandomCorpus(40, 2, 9, V, 32);
    auto evaluate = [&] {
      return ValueOrThrow(EvaluateClassifierEm(layout, layout.Stack(m), d, ClassifierEmOptions{0.01, true, true, 2}));
    };
    SetActiveIsa(Isa::kBaseline);
    const ClassifierEmValue want = evaluate();
    for (Isa isa : SupportedIsas()) {
      SetActiveIsa(isa);
      const ClassifierEmValue got = evaluate();
      EXPECT_TRUE(got.em0 == want.em0) << IsaName(isa);
      EXPECT_TRUE(got.em1 == want.em1) << IsaName(isa);
      EXPECT_TRUE(got.em0_jacobian == want.em0_jacobian) << IsaName(isa);
      EXPECT_TRUE(got.em1_jacobian == want.em1_jacobian) << IsaName(isa);
    }
    SetActiveIsa(SupportedIsas().back());
  }
}

}  // namespace classifier_em_test
}  // namespace seqflow

// The PoM layout and the EM_λ operator: EM_0 by hand and against the supervised estimator,
// EM_1 against enumeration, the objective against its definition, and monotone EM_λ runs.
#include "nodes/semi_supervised/em_lambda.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>

#include "nodes/hmm/supervised.h"
#include "tests/nodes/homotopy/homotopy_testutil.h"

namespace seqflow {
namespace em_lambda_test {

using testutil::RandomCorpus;
using testutil::RandomHmm;
using testutil::SampleHmm;

double MaxAbs(const Eigen::MatrixXd& m) { return m.size() == 0 ? 0.0 : m.cwiseAbs().maxCoeff(); }

TEST(PomLayout, OffsetsFollowTheFreeBlocks) {
  const PomLayout all(3, 5, FreeBlocks{true, true, true});
  EXPECT_EQ(all.num_params(), 3 + 9 + 15);
  EXPECT_EQ(all.multinomials().size(), 7u);
  EXPECT_EQ(all.TransitionIndex(1, 2), 3 + 1 * 3 + 2);
  EXPECT_EQ(all.EmissionIndex(2, 4), 12 + 2 * 5 + 4);
  const PomLayout emission(3, 5, FreeBlocks{false, false, true});
  EXPECT_EQ(emission.num_params(), 15);
  EXPECT_EQ(emission.InitialIndex(0), -1);
  EXPECT_EQ(emission.TransitionIndex(0, 0), -1);
  EXPECT_EQ(emission.EmissionIndex(1, 0), 5);
  EXPECT_EQ(emission.multinomials().size(), 3u);
}

TEST(PomLayout, GatherScatterAndToHmmRoundTrip) {
  const HmmParams hmm = RandomHmm(3, 4, 1);
  const HmmParams other = RandomHmm(3, 4, 2);
  const PomLayout layout(3, 4, FreeBlocks{true, false, true});
  const Eigen::VectorXd flat = layout.Gather(hmm);
  Eigen::VectorXd pi;
  Eigen::MatrixXd a, b;
  layout.Scatter(flat, &pi, &a, &b);
  EXPECT_EQ(pi, hmm.initial);
  EXPECT_EQ(a, Eigen::MatrixXd::Zero(3, 3));
  EXPECT_EQ(b, hmm.emission);
  // Scaling a multinomial does not change θ; frozen blocks come from the reference model.
  Eigen::VectorXd scaled = flat;
  scaled.segment(layout.EmissionIndex(1, 0), 4) *= 7.0;
  const HmmParams back = layout.ToHmm(scaled, other);
  EXPECT_LE(MaxAbs(back.emission - hmm.emission), 1e-15);
  EXPECT_LE(MaxAbs(back.initial - hmm.initial), 1e-15);
  EXPECT_EQ(back.transition, other.transition);
}

TEST(Em0, CountsPlusPseudoCountsOverLabeledSentences) {
  const PomLayout layout(2, 3, FreeBlocks{true, true, true});
  const IdSentences words = {{0, 2, 2}, {1}};
  const IdSentences labels = {{0, 1, 1}, {1}};
  const Eigen::VectorXd em0 = Em0(layout, words, labels, HmmSmoothing{0.1, 0.2, 0.05});
  EXPECT_DOUBLE_EQ(em0[layout.InitialIndex(0)], (1 + 0.1) / 2);
  EXPECT_DOUBLE_EQ(em0[layout.InitialIndex(1)], (1 + 0.1) / 2);
  EXPECT_DOUBLE_EQ(em0[layout.TransitionIndex(0, 1)], (1 + 0.2) / 2);
  EXPECT_DOUBLE_EQ(em0[layout.TransitionIndex(1, 1)], (1 + 0.2) / 2);
  EXPECT_DOUBLE_EQ(em0[layout.TransitionIndex(1, 0)], 0.2 / 2);
  EXPECT_DOUBLE_EQ(em0[layout.EmissionIndex(1, 2)], (2 + 0.05) / 2);
  EXPECT_DOUBLE_EQ(em0[layout.EmissionIndex(1, 1)], (1 + 0.05) / 2);
  EXPECT_DOUBLE_EQ(em0[layout.EmissionIndex(0, 1)], 0.05 / 2);
}

TEST(Em0, NormalizedIsTheSmoothedSupervisedEstimate) {
  const HmmParams truth = RandomHmm(3, 6, 3);
  const auto labeled = SampleHmm(truth, 25, 2, 8, 4);
  const HmmSmoothing smoothing{0.3, 0.2, 0.05};
  const PomLayout layout(3, 6, FreeBlocks{true, true, true});
  const Eigen::VectorXd em0 = Em0(layout, labeled.words, labeled.labels, smoothing);
  const HmmParams want = EstimateSupervisedHmm(labeled.words, labeled.labels, 3, 6, smoothing);
  const HmmParams got = layout.ToHmm(em0, truth);
  EXPECT_LE(MaxAbs(got.initial - want.initial), 1e-15);
  EXPECT_LE(MaxAbs(got.transition - want.transition), 1e-15);
  EXPECT_LE(MaxAbs(got.emission - want.emission), 1e-15);
}

TEST(Em1, IsTheMeanExpectedCountByEnumeration) {
  const HmmParams hmm = RandomHmm(3, 4, 5);
  const IdSentences corpus = RandomCorpus(9, 1, 4, 4, 6);
  const PomLayout layout(3, 4, FreeBlocks{false, true, true});
  const Em1Result e = Em1(layout, hmm, corpus, 1);
  Eigen::VectorXd want = Eigen::VectorXd::Zero(layout.num_params());
  double ll = 0;
  for (const auto& x : corpus) {
    const auto bf = testutil::EnumerateHmm(hmm, x);
    want += layout.Gather(bf.initial, bf.transition, bf.emission);
    ll += bf.log_likelihood();
  }
  EXPECT_LE(MaxAbs(e.em1 - want / 9.0), 1e-12);
  EXPECT_NEAR(e.mean_log_likelihood, ll / 9.0, 1e-12);
}

// With ε = 0 and every block free, L_λ is the paper's objective exactly.
TEST(LambdaObjective, IsThePapersObjectiveWithoutSmoothing) {
  const HmmParams truth = RandomHmm(2, 3, 7, 0.2);
  const HmmParams model = RandomHmm(2, 3, 8, 0.2);
  const auto labeled = SampleHmm(truth, 6, 1, 4, 9);
  const IdSentences unlabeled = RandomCorpus(5, 1, 4, 3, 10);
  const PomLayout layout(2, 3, FreeBlocks{true, true, true});
  const Eigen::VectorXd em0 = Em0(layout, labeled.words, labeled.labels, HmmSmoothing{0, 0, 0});
  const double lambda = 0.3;
  double joint = 0;
  for (size_t s = 0; s < labeled.words.size(); ++s) {
    joint += std::log(testutil::JointProbability(model, labeled.words[s], labeled.labels[s]));
  }
  double marginal = 0;
  for (const auto& x : unlabeled) marginal += testutil::EnumerateHmm(model, x).log_likelihood();
  const double want = (1 - lambda) * joint / 6.0 + lambda * marginal / 5.0;
  const double got = LambdaObjective(layout, em0, model, lambda, Em1(layout, model, unlabeled, 1).mean_log_likelihood);
  EXPECT_NEAR(got, want, 1e-12);
}

struct EmCase {
  HmmParams start;
  Eigen::VectorXd em0;
  IdSentences unlabeled;
};

EmCase MakeCase(const PomLayout& layout, uint64_t seed) {
  const HmmParams truth = RandomHmm(layout.num_states(), layout.num_symbols(), seed, 0.1);
  const auto labeled = SampleHmm(truth, 10, 2, 7, seed + 1);
  const HmmSmoothing smoothing{0.2, 0.2, 0.05};
  EmCase c;
  c.start = EstimateSupervisedHmm(labeled.words, labeled.labels, layout.num_states(), layout.num_symbols(), smoothing);
  c.em0 = Em0(layout, labeled.words, labeled.labels, smoothing);
  c.unlabeled = SampleHmm(truth, 80, 2, 9, seed + 2).words;
  return c;
}

TEST(RunEmLambda, ObjectiveNeverDecreases) {
  for (const FreeBlocks& free : {FreeBlocks{true, true, true}, FreeBlocks{false, false, true}}) {
    const PomLayout layout(3, 5, free);
    const EmCase c = MakeCase(layout, 20);
    for (double lambda : {0.1, 0.5, 0.9, 1.0}) {
      const EmLambdaResult r = ValueOrThrow(RunEmLambda(c.start, lambda, c.em0, c.unlabeled, layout, {40, 0.0, 1}));
      ASSERT_EQ(r.objective.size(), 41u);
      for (size_t i = 1; i < r.objective.size(); ++i) {
        EXPECT_GE(r.objective[i], r.objective[i - 1] - 1e-12 * std::abs(r.objective[i]))
            << "λ=" << lambda << " i=" << i;
      }
      EXPECT_GT(r.objective.back(), r.objective.front());
    }
  }
}

TEST(RunEmLambda, ResumingFromAnyIterationsStateGivesTheUninterruptedBits) {
  const PomLayout layout(3, 5, FreeBlocks{false, true, true});
  const EmCase c = MakeCase(layout, 25);
  std::vector<EmLambdaResult> states;
  const EmLambdaResult whole = ValueOrThrow(RunEmLambda(c.start, 0.7, c.em0, c.unlabeled, layout, {12, 0.0, 1}, {},
                                                        nullptr, [&](const EmLambdaResult& s) { states.push_back(s); }));
  ASSERT_EQ(states.size(), 12u);
  for (const EmLambdaResult& state : states) {
    SCOPED_TRACE("resumed after " + std::to_string(state.iterations) + " updates");
    EmLambdaResult saved;  // what a checkpoint keeps: the model is rebuilt from Θ̃
    saved.iterations = state.iterations;
    saved.theta_tilde = state.theta_tilde;
    saved.objective = state.objective;
    const EmLambdaResult resumed =
        ValueOrThrow(RunEmLambda(c.start, 0.7, c.em0, c.unlabeled, layout, {12, 0.0, 1}, {}, &saved));
    EXPECT_EQ(resumed.objective, whole.objective);
    EXPECT_EQ(resumed.theta_tilde, whole.theta_tilde);
    EXPECT_EQ(resumed.model.emission, whole.model.emission);
    EXPECT_EQ(resumed.iterations, whole.iterations);
  }
  EmLambdaResult wrong = states.front();
  wrong.theta_tilde.conservativeResize(wrong.theta_tilde.size() - 1);
  EXPECT_EQ(RunEmLambda(c.start, 0.7, c.em0, c.unlabeled, layout, {12, 0.0, 1}, {}, &wrong).status().code(),
            StatusCode::kInvalid);
}

// What hmm.em keeps when it ends (KeepFinalState): the state after its last update.
EmLambdaResult FinalState(const EmLambdaResult& r) {
  EmLambdaResult kept;
  kept.iterations = r.iterations;
  kept.theta_tilde = r.theta_tilde;
  kept.objective.assign(r.objective.begin(), r.objective.begin() + r.iterations);
  return kept;
}

TEST(RunEmLambda, ASmallerBudgetsFinalStateContinuesToTheLargerBudgetsBits) {
  const PomLayout layout(3, 5, FreeBlocks{false, true, true});
  const EmCase c = MakeCase(layout, 25);
  auto run = [&](int max_iter, double tol, const EmLambdaResult* from = nullptr) {
    return ValueOrThrow(RunEmLambda(c.start, 0.7, c.em0, c.unlabeled, layout, {max_iter, tol, 1}, {}, from));
  };
  const EmLambdaResult larger = run(15, 0.0);
  const EmLambdaResult smaller = FinalState(run(6, 0.0));
  const EmLambdaResult continued = run(15, 0.0, &smaller);
  EXPECT_EQ(continued.objective, larger.objective);
  EXPECT_EQ(continued.theta_tilde, larger.theta_tilde);
  EXPECT_EQ(continued.iterations, larger.iterations);
  // A tolerance tightened: the looser run converged, the tighter one goes on from there.
  const EmLambdaResult loose = run(200, 1e-3);
  ASSERT_TRUE(loose.converged);
  const EmLambdaResult tight = run(200, 1e-7), from_loose = FinalState(loose);
  ASSERT_GT(tight.iterations, loose.iterations);
  const EmLambdaResult tightened = run(200, 1e-7, &from_loose);
  EXPECT_EQ(tightened.objective, tight.objective);
  EXPECT_EQ(tightened.theta_tilde, tight.theta_tilde);
  // Past where the options stop: fewer iterations, or a looser tolerance.
  const EmLambdaResult from_larger = FinalState(larger);
  EXPECT_EQ(RunEmLambda(c.start, 0.7, c.em0, c.unlabeled, layout, {10, 0.0, 1}, {}, &from_larger).status().code(),
            StatusCode::kInvalid);
  const EmLambdaResult from_tight = FinalState(tight);
  EXPECT_EQ(RunEmLambda(c.start, 0.7, c.em0, c.unlabeled, layout, {200, 1e-3, 1}, {}, &from_tight).status().code(),
            StatusCode::kInvalid);
}

TEST(RunEmLambda, LambdaZeroJumpsToTheSupervisedFixedPoint) {
  const PomLayout layout(3, 5, FreeBlocks{true, true, true});
  const EmCase c = MakeCase(layout, 30);
  const HmmParams uniform = layout.ToHmm(Eigen::VectorXd::Ones(layout.num_params()), c.start);
  const EmLambdaResult r = ValueOrThrow(RunEmLambda(uniform, 0.0, c.em0, {}, layout, {10, 1e-14, 1}));
  EXPECT_TRUE(r.converged);
  EXPECT_EQ(r.iterations, 2);  // the second update finds the objective unchanged
  EXPECT_EQ(r.theta_tilde, c.em0);
  EXPECT_LE(MaxAbs(r.model.emission - c.start.emission), 1e-15);
}

TEST(RunEmLambda, LambdaOneIsPlainEmAndFrozenBlocksStay) {
  const PomLayout layout(3, 5, FreeBlocks{true, false, true});
  const EmCase c = MakeCase(layout, 40);
  const EmLambdaResult r = ValueOrThrow(RunEmLambda(c.start, 1.0, c.em0, c.unlabeled, layout, {1, 0.0, 1}));
  const ExpectedCounts counts = CorpusExpectedCounts(c.start, c.unlabeled, 1);
  for (int i = 0; i < 3; ++i) {
    EXPECT_LE(MaxAbs(r.model.emission.row(i) - counts.emission.row(i) / counts.emission.row(i).sum()), 1e-14);
  }
  EXPECT_EQ(r.model.transition, c.start.transition);
}

TEST(RunEmLambda, ConvergesAndIsThreadIndependent) {
  const PomLayout layout(3, 5, FreeBlocks{true, true, true});
  const EmCase c = MakeCase(layout, 50);
  const EmLambdaResult one = ValueOrThrow(RunEmLambda(c.start, 0.4, c.em0, c.unlabeled, layout, {500, 1e-13, 1}));
  const EmLambdaResult two = ValueOrThrow(RunEmLambda(c.start, 0.4, c.em0, c.unlabeled, layout, {500, 1e-13, 2}));
  EXPECT_TRUE(one.converged);
  EXPECT_EQ(one.theta_tilde, two.theta_tilde);
  EXPECT_EQ(one.objective, two.objective);
}

TEST(RunEmLambda, CancelledTokenIsCancelledStatus) {
  const PomLayout layout(3, 5, FreeBlocks{true, true, true});
  const EmCase c = MakeCase(layout, 10);
  std::atomic<bool> stop{true};
  const Result<EmLambdaResult> r =
      RunEmLambda(c.start, 0.4, c.em0, c.unlabeled, layout, {500, 1e-13, 1}, CancelToken(&stop));
  EXPECT_EQ(r.status().code(), StatusCode::kCancelled);
}

}  // namespace em_lambda_test
}  // namespace seqflow

namespace seqflow {
namespace em_lambda_test {

// Regression: at λ = 1 EM may drive an event seen only in labeled data to θ = 0; the labeled term
// has weight 0 there and must not turn the objective into 0 · log 0 = NaN.
TEST(LambdaObjective, LambdaOneIgnoresZeroProbabilityLabeledEvents) {
  const PomLayout layout(2, 3, FreeBlocks{false, false, true});
  HmmParams hmm = testutil::RandomHmm(2, 3, 5);
  hmm.emission.row(0) << 0.0, 0.5, 0.5;
  Eigen::VectorXd em0 = Eigen::VectorXd::Constant(layout.num_params(), 0.3);
  EXPECT_EQ(LambdaObjective(layout, em0, hmm, 1.0, -2.5), -2.5);
  EXPECT_TRUE(std::isinf(LambdaObjective(layout, em0, hmm, 0.5, -2.5)));
}

}  // namespace em_lambda_test
}  // namespace seqflow

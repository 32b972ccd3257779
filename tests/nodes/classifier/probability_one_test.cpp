// The probability-one map (19): its derivative against central differences, and tracks on the
// generated matched and mismatched data that reach λ = 1 at a fixed point of EM_1.
#include "nodes/homotopy/probability_one.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "datasets/hmm_class_data.h"
#include "nodes/hmm/classifier_training.h"
#include "nodes/homotopy/ji_experiment.h"
#include "tests/testutil/hmm_brute_force.h"
#include "tests/testutil/state_fingerprint.h"

namespace seqflow {
namespace probability_one_test {

ClassifierData SmallData(uint64_t seed) {
  HmmClassDataSpec spec = MatchedHmmClassSpec();
  spec.per_class = 30;
  const HmmClassData all = SampleHmmClassData(spec, seed);
  ClassifierData d;
  for (size_t i = 0; i < all.sequences.size(); ++i) {
    if (i % 10 == 0) {
      d.labeled.push_back(all.sequences[i]);
      d.labels.push_back(all.labels[i]);
    } else {
      d.unlabeled.push_back(all.sequences[i]);
    }
  }
  return d;
}

TEST(ProbabilityOne, MapDerivativeMatchesCentralDifferences) {
  const ClassifierData d = SmallData(3);
  const ClassifierLayout layout(2, 2, 5);
  HmmClassifier m;
  m.prior = Eigen::Vector2d(0.5, 0.5);
  for (int y = 0; y < 2; ++y) m.classes.push_back(testutil::RandomHmm(2, 5, 40 + y, 0.1));
  const Eigen::VectorXd theta0 = layout.Stack(m);
  const ProbabilityOneOptions options;
  const HomotopyMap map = ProbabilityOneMap(layout, theta0, d, options);
  const int P = layout.num_params();
  for (double lambda : {0.001, 0.01, 0.4}) {  // λ < 0 is outside the map's domain
    Eigen::VectorXd y(P + 1);
    HmmClassifier other = m;
    other.classes[0] = testutil::RandomHmm(2, 5, 50, 0.1);
    y << 1.3 * layout.Stack(other), lambda;
    const CurveEvaluation at = ValueOrThrow(map(y));
    // Dρ e_k by the kernel's own solve: Dρ Δ = r with Δ = e_k ⇒ compare columns via differences.
    Eigen::MatrixXd d_fd(P, P + 1);
    const double h = 1e-6;
    for (int k = 0; k <= P; ++k) {
      Eigen::VectorXd plus = y, minus = y;
      plus[k] += h;
      minus[k] -= h;
      d_fd.col(k) = (ValueOrThrow(map(plus)).rho - ValueOrThrow(map(minus)).rho) / (2 * h);
    }
    // The linearisation's tangent spans ker Dρ: check it against the finite-difference matrix,
    // and the minimum-norm solve reproduces Dρ applied to a test vector.
    const Eigen::VectorXd t = at.linearization->Tangent(Eigen::VectorXd::Unit(P + 1, P));
    EXPECT_LE((d_fd * t).norm(), 1e-7) << "lambda " << lambda;
    const Eigen::VectorXd v = Eigen::VectorXd::LinSpaced(P + 1, -1.0, 1.0);
    const Eigen::VectorXd r = d_fd * v;
    const Eigen::VectorXd solved = at.linearization->SolveAugmented(Eigen::VectorXd::Unit(P + 1, P), r, v[P]);
    EXPECT_LE((solved - v).norm(), 1e-6 * v.norm()) << "lambda " << lambda;
  }
  // λ < 0 and parameters well below 0 are outside the domain (the step that reached them is halved).
  Eigen::VectorXd y(P + 1);
  y << theta0, -0.01;
  EXPECT_TRUE(ValueOrThrow(map(y)).outside_domain);
  y[P] = 0.2;
  y[3] = -0.01;
  EXPECT_TRUE(ValueOrThrow(map(y)).outside_domain);
  y[3] = -1e-6;
  EXPECT_FALSE(ValueOrThrow(map(y)).outside_domain);
}

Eigen::VectorXd SupervisedStart(const ClassifierLayout& layout, const ClassifierData& d, double eps) {
  ClassifierTrainOptions train;
  train.num_states = layout.num_states();
  train.restarts = 3;
  train.smoothing = eps;
  const ClassifierTrainResult sup =
      ValueOrThrow(TrainHmmClassifier(d.labeled, d.labels, layout.num_classes(), layout.num_symbols(), train));
  ClassifierEmOptions o;
  o.smoothing = eps;
  o.need_em1 = false;
  return ValueOrThrow(EvaluateClassifierEm(layout, layout.Stack(sup.model), d, o)).em0;
}

TEST(ProbabilityOne, TrackReachesAFixedPointOfEm1) {
  const ClassifierData d = SmallData(5);
  const ClassifierLayout layout(2, 2, 5);
  const ProbabilityOneOptions options;
  const Eigen::VectorXd theta0 = SupervisedStart(layout, d, options.smoothing);
  const ClassifierPath path = ValueOrThrow(TraceProbabilityOne(layout, theta0, d, {}, options));
  ASSERT_EQ(path.stop, NormalFlowStop::kReachedEnd);
  const ClassifierPathPoint& last = path.points.back();
  EXPECT_EQ(last.lambda, 1.0);
  ClassifierEmOptions o;
  o.smoothing = options.smoothing;
  const ClassifierEmValue em = ValueOrThrow(EvaluateClassifierEm(layout, last.theta_tilde, d, o));
  EXPECT_LE((last.theta_tilde - em.em1).cwiseAbs().maxCoeff(), 1e-9);
  EXPECT_EQ(path.points.front().theta_tilde, theta0);
  EXPECT_LE(path.final_segment_start, path.points.size() - 1);
  std::cout << "matched small: " << path.points.size() << " points, " << path.evaluations << " evaluations, "
            << path.returns << " returns\n";
}


// A track resumed from any state it offered ends with the whole track's points and counts, bit
// for bit; a state of another layout is refused.
TEST(ProbabilityOne, ATrackResumedFromAnyCheckpointEndsWithTheSameBits) {
  const ClassifierData d = SmallData(5);
  const ClassifierLayout layout(2, 2, 5);
  const ProbabilityOneOptions options;
  const Eigen::VectorXd theta0 = SupervisedStart(layout, d, options.smoothing);
  std::vector<std::string> states;
  KernelCheckpoints keep;
  keep.offer = [&](const std::function<StatePieces()>& encode) { states.push_back(encode().Join()); };
  const ClassifierPath whole = ValueOrThrow(TraceProbabilityOne(layout, theta0, d, {}, options, {}, keep));
  ASSERT_GE(states.size(), 3u);
  for (size_t i = 0; i < states.size(); i += states.size() / 3) {
    SCOPED_TRACE(i);
    KernelCheckpoints from;
    from.resume_from = &states[i];
    const ClassifierPath resumed = ValueOrThrow(TraceProbabilityOne(layout, theta0, d, {}, options, {}, from));
    EXPECT_EQ(resumed.stop, whole.stop);
    EXPECT_EQ(resumed.evaluations, whole.evaluations);
    EXPECT_EQ(resumed.steps, whole.steps);
    EXPECT_EQ(resumed.returns, whole.returns);
    EXPECT_EQ(resumed.final_segment_start, whole.final_segment_start);
    ASSERT_EQ(resumed.points.size(), whole.points.size());
    for (size_t k = 0; k < whole.points.size(); ++k) {
      EXPECT_EQ(resumed.points[k].s, whole.points[k].s) << k;
      EXPECT_EQ(resumed.points[k].theta_tilde, whole.points[k].theta_tilde) << k;
      EXPECT_EQ(resumed.points[k].entropy, whole.points[k].entropy) << k;
    }
  }
  const ClassifierLayout other(2, 3, 5);
  KernelCheckpoints from;
  from.resume_from = &states[0];
  const Result<ClassifierPath> refused =
      TraceProbabilityOne(other, Eigen::VectorXd::Ones(other.num_params()), d, {}, options, {}, from);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalid);
}

// One draw of the Table I experiment: 3 labeled per class, the rest unlabeled; the four scores are
// the path's own figures at the chosen points, and the same draw gives the same numbers.
TEST(JiExperiment, DrawScoresThePathsPoints) {
  HmmClassDataSpec spec = MatchedHmmClassSpec();
  spec.per_class = 40;
  const HmmClassData all = SampleHmmClassData(spec, 7);
  JiDrawOptions o;
  o.labeled_per_class = 3;
  o.train.restarts = 2;
  const JiDrawResult r = ValueOrThrow(RunJiDraw(all.sequences, all.labels, 2, 5, 4, o));
  ASSERT_EQ(r.path.stop, NormalFlowStop::kReachedEnd);
  EXPECT_NEAR(r.lambda_mle, 74.0 / 80.0, 1e-15);
  EXPECT_EQ(r.supervised, r.path.points.front().accuracy);
  EXPECT_EQ(r.last_lambda_zero, r.path.points[r.path.final_segment_start].accuracy);
  EXPECT_EQ(r.returns, r.path.returns);
  for (double a : {r.supervised, r.last_lambda_zero, r.mle, r.max_entropy}) {
    EXPECT_GE(a, 0.0);
    EXPECT_LE(a, 1.0);
  }
  const JiDrawResult again = ValueOrThrow(RunJiDraw(all.sequences, all.labels, 2, 5, 4, o));
  EXPECT_EQ(again.mle, r.mle);
  EXPECT_EQ(again.path.evaluations, r.path.evaluations);
  // Too few sequences in a class to label is Invalid.
  o.labeled_per_class = 40;
  EXPECT_EQ(RunJiDraw(all.sequences, all.labels, 2, 5, 4, o).status().code(), StatusCode::kInvalid);
}

// The bytes of the first and the last state the track offers, pinned: a state saved by an earlier
// build must still resume (tests/testutil/state_fingerprint.h).
TEST(ProbabilityOne, StateBytesAreThoseOfEarlierBuilds) {
  const ClassifierData d = SmallData(5);
  const ClassifierLayout layout(2, 2, 5);
  const ProbabilityOneOptions options;
  const Eigen::VectorXd theta0 = SupervisedStart(layout, d, options.smoothing);
  std::vector<std::string> states;
  KernelCheckpoints keep;
  keep.offer = [&](const std::function<StatePieces()>& encode) { states.push_back(encode().Join()); };
  ASSERT_TRUE(TraceProbabilityOne(layout, theta0, d, {}, options, {}, keep).ok());
  ASSERT_GE(states.size(), 3u);
  const uint64_t first = testutil::StateFingerprint(states.front()), last = testutil::StateFingerprint(states.back());
  EXPECT_EQ(first, 0x3eae1348ba1ef0acULL) << std::hex << "0x" << first;
  EXPECT_EQ(last, 0xd351a4584bcc08beULL) << std::hex << "0x" << last;
}

}  // namespace probability_one_test
}  // namespace seqflow

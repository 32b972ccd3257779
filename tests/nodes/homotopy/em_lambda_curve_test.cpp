// The EM_λ fixed-point curve followed by the normal-flow tracker (em_lambda_curve.h): it reaches
// λ = 1 through the folds of λ(s) with every point on the curve, the determinant sign flips where
// λ turns, the back ends agree, and the Euler tracker on the same problem does not get there.
#include "nodes/homotopy/em_lambda_curve.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "nodes/hmm/supervised.h"
#include "nodes/homotopy/jacobian.h"
#include "nodes/semi_supervised/em_lambda.h"
#include "tests/nodes/homotopy/homotopy_testutil.h"
#include "tests/testutil/state_fingerprint.h"

namespace seqflow {
namespace em_lambda_curve_test {

using testutil::RandomHmm;
using testutil::SampleHmm;

const HmmSmoothing kSmoothing{0.2, 0.2, 0.05};

struct Problem {
  PomLayout layout;
  HmmParams supervised;
  Eigen::VectorXd em0;
  IdSentences unlabeled;
};

Problem MakeProblem(FreeBlocks free, int K, int V, size_t n_labeled, size_t n_unlabeled, int max_len, uint64_t seed) {
  const HmmParams truth = RandomHmm(K, V, seed, 0.1);
  const auto labeled = SampleHmm(truth, n_labeled, 2, max_len, seed + 1);
  Problem p{PomLayout(K, V, free), EstimateSupervisedHmm(labeled.words, labeled.labels, K, V, kSmoothing),
            Eigen::VectorXd(), SampleHmm(truth, n_unlabeled, 2, max_len, seed + 2).words};
  p.em0 = Em0(p.layout, labeled.words, labeled.labels, kSmoothing);
  return p;
}

EmLambdaCurveOptions CurveOptions(PathSolver solver) {
  EmLambdaCurveOptions o;
  o.solver = solver;
  o.tracker.arc_rel_tol = 1e-9;
  o.tracker.arc_abs_tol = 1e-9;
  o.tracker.max_step = 0.5;
  return o;
}

int Turns(const PathResult& r) {
  int turns = 0;
  for (size_t k = 1; k < r.points.size(); ++k)
    if ((r.points[k].dlambda_ds > 0) != (r.points[k - 1].dlambda_ds > 0)) ++turns;
  return turns;
}

// K = 3, V = 6, emission block free; 30 labeled and 60 unlabeled sentences. Its curve folds
// twice near λ = 0.96 (λ turns back at 0.96037 and forward again at 0.95978).
Problem FoldingProblem() { return MakeProblem(FreeBlocks{false, false, true}, 3, 6, 30, 60, 10, 11); }

PathResult TraceCurve(const Problem& p, const EmLambdaCurveOptions& o) {
  return ValueOrThrow(TraceEmLambdaCurve(p.layout, p.supervised, p.em0, p.unlabeled, o));
}

int DetChanges(const PathResult& r) {
  int changes = 0;
  for (size_t k = 1; k < r.points.size(); ++k) changes += r.points[k].det_sign != r.points[k - 1].det_sign;
  return changes;
}

TEST(EmLambdaCurve, ReachesLambdaOneThroughTheFoldsOnTheCurve) {
  const Problem p = FoldingProblem();
  const PathResult r = TraceCurve(p, CurveOptions(PathSolver::kDense));
  ASSERT_EQ(r.stop, PathStop::kReachedEnd);
  EXPECT_EQ(r.points.back().lambda, 1.0);
  EXPECT_EQ(Turns(r), 2);
  EXPECT_EQ(DetChanges(r), 2);
  double lowest_after_fold = 1;
  bool folded = false;
  for (size_t k = 0; k < r.points.size(); ++k) {
    const PathPoint& q = r.points[k];
    EXPECT_LE(q.residual, 1e-9) << k;
    EXPECT_TRUE(q.crossed_exact);
    // sign det [DF; tᵀ] is constant along the curve, so λ turns exactly where det(I − λJ) changes sign.
    EXPECT_EQ(q.dlambda_ds > 0, q.det_sign > 0) << k;
    EXPECT_NEAR(q.min_eig, q.lambda * q.mu_max - 1, 1e-15);
    if (q.dlambda_ds < 0) folded = true;
    if (folded) lowest_after_fold = std::min(lowest_after_fold, q.lambda);
    if (k > 0) {
      EXPECT_GT(q.s, r.points[k - 1].s);
    }
  }
  EXPECT_LT(lowest_after_fold, 0.9600);  // it went back in λ
}

// The Euler tracker (path_tracker.h) on the same problem, adaptive steps and corrector: it reaches
// λ = 1 without a turn or a sign change of the determinant, its last step landing 2.5 step lengths
// away (a jump across the folds onto another stretch of the zero set).
TEST(EmLambdaCurve, EulerJumpsOverTheFolds) {
  const Problem p = FoldingProblem();
  PathOptions o;
  o.solver = PathSolver::kDense;
  o.step = 0.05;
  o.max_step = 0.4;
  const PathResult euler = ValueOrThrow(TraceEmLambdaPath(p.layout, p.supervised, p.em0, p.unlabeled, o));
  ASSERT_EQ(euler.stop, PathStop::kReachedEnd);
  EXPECT_EQ(Turns(euler), 0);
  EXPECT_EQ(DetChanges(euler), 0);
  double worst_ratio = 0;
  for (size_t k = 1; k < euler.points.size(); ++k) {
    const double chord = (euler.points[k].theta_tilde - euler.points[k - 1].theta_tilde).norm();
    worst_ratio = std::max(worst_ratio, chord / euler.points[k].step);
  }
  EXPECT_GT(worst_ratio, 2.0);
  const PathResult curve = TraceCurve(p, CurveOptions(PathSolver::kDense));
  double curve_ratio = 0;
  for (size_t k = 1; k + 1 < curve.points.size(); ++k) {
    const double chord = (curve.points[k].theta_tilde - curve.points[k - 1].theta_tilde).norm();
    curve_ratio = std::max(curve_ratio, chord / (curve.points[k].s - curve.points[k - 1].s));
  }
  EXPECT_LE(curve_ratio, 1.0 + 1e-12);  // s is the sum of chords (Θ̃ and λ), so no chord outruns it
}

TEST(EmLambdaCurve, BackEndsAgree) {
  const Problem p = FoldingProblem();
  const PathResult dense = TraceCurve(p, CurveOptions(PathSolver::kDense));
  const PathResult free = TraceCurve(p, CurveOptions(PathSolver::kMatrixFree));
  ASSERT_EQ(free.stop, PathStop::kReachedEnd);
  EXPECT_EQ(Turns(free), 2);
  EXPECT_LE((free.points.back().theta_tilde - dense.points.back().theta_tilde).cwiseAbs().maxCoeff(), 1e-7);
  // The fold: the maximum of λ(s) where λ first turns back, on the cubic Hermite interpolant of
  // λ(s) between the two points around the turn (the points themselves sample it only to O(h)).
  auto fold = [](const PathResult& r) {
    for (size_t k = 1; k < r.points.size(); ++k) {
      if (r.points[k].dlambda_ds >= 0) continue;
      const PathPoint& a = r.points[k - 1];
      const PathPoint& b = r.points[k];
      const double h = b.s - a.s;
      double best = std::max(a.lambda, b.lambda);
      for (int i = 1; i < 1000; ++i) {
        const double u = i / 1000.0, u2 = u * u, u3 = u2 * u;
        best = std::max(best, (2 * u3 - 3 * u2 + 1) * a.lambda + (u3 - 2 * u2 + u) * h * a.dlambda_ds +
                                  (3 * u2 - 2 * u3) * b.lambda + (u3 - u2) * h * b.dlambda_ds);
      }
      return best;
    }
    return -1.0;
  };
  EXPECT_NEAR(fold(free), fold(dense), 1e-3);
  EXPECT_NEAR(fold(dense), 0.9604, 1e-3);
  for (const PathPoint& q : free.points) EXPECT_LE(q.residual, 1e-8);
}

// Newton steps solved only to 1e-4 (inexact Newton, tangents at the full tolerance) still put
// every point on the curve and end where exact solves end, through the same folds.
TEST(EmLambdaCurve, InexactNewtonStepsStayOnTheCurve) {
  const Problem p = FoldingProblem();
  const PathResult exact = TraceCurve(p, CurveOptions(PathSolver::kMatrixFree));
  EmLambdaCurveOptions o = CurveOptions(PathSolver::kMatrixFree);
  o.step_gmres_tol = 1e-4;
  const PathResult inexact = TraceCurve(p, o);
  ASSERT_EQ(inexact.stop, PathStop::kReachedEnd);
  EXPECT_EQ(Turns(inexact), 2);
  for (const PathPoint& q : inexact.points) EXPECT_LE(q.residual, 1e-8);
  EXPECT_LE((inexact.points.back().theta_tilde - exact.points.back().theta_tilde).cwiseAbs().maxCoeff(), 1e-7);
}

// The pseudo-arclength corrector (one tangent solve per step instead of one per Newton iterate)
// follows the same curve through the same folds, dense and matrix-free, and ends where the normal
// flow ends.
TEST(EmLambdaCurve, PseudoArclengthCorrectorFollowsTheSameCurve) {
  const Problem p = FoldingProblem();
  const PathResult normal = TraceCurve(p, CurveOptions(PathSolver::kDense));
  for (PathSolver solver : {PathSolver::kDense, PathSolver::kMatrixFree}) {
    EmLambdaCurveOptions o = CurveOptions(solver);
    o.tracker.pseudo_arclength = true;
    o.step_gmres_tol = solver == PathSolver::kMatrixFree ? 1e-4 : 0;
    const PathResult r = TraceCurve(p, o);
    ASSERT_EQ(r.stop, PathStop::kReachedEnd);
    EXPECT_EQ(r.points.back().lambda, 1.0);
    EXPECT_EQ(Turns(r), 2);
    if (solver == PathSolver::kDense) {
      EXPECT_EQ(DetChanges(r), 2);
    }
    for (const PathPoint& q : r.points) {
      EXPECT_LE(q.residual, 1e-8);
      if (solver == PathSolver::kDense) {
        EXPECT_EQ(q.dlambda_ds > 0, q.det_sign > 0);
      }
    }
    EXPECT_LE((r.points.back().theta_tilde - normal.points.back().theta_tilde).cwiseAbs().maxCoeff(), 1e-7);
  }
}

// The chord corrector (every Newton step of a correction with its first iterate's Jacobian) with
// GMRES recycling its directions between those steps lands on the pseudo-arclength corrector's
// curve: same folds, every point on the curve, the same end.
TEST(EmLambdaCurve, ChordCorrectorWithRecycledGmresFollowsTheSameCurve) {
  const Problem p = FoldingProblem();
  const PathResult normal = TraceCurve(p, CurveOptions(PathSolver::kDense));
  EmLambdaCurveOptions o = CurveOptions(PathSolver::kMatrixFree);
  o.tracker.pseudo_arclength = true;
  o.tracker.chord = true;
  o.gmres_recycle = 100;
  o.step_gmres_tol = 1e-4;
  const PathResult r = TraceCurve(p, o);
  ASSERT_EQ(r.stop, PathStop::kReachedEnd);
  EXPECT_EQ(Turns(r), 2);
  for (const PathPoint& q : r.points) EXPECT_LE(q.residual, 1e-8);
  EXPECT_LE((r.points.back().theta_tilde - normal.points.back().theta_tilde).cwiseAbs().maxCoeff(), 1e-7);
}

// The fourth step's options together — corrections accepted on the predicted next step, Lanczos
// stopped on μ_max's error estimate — follow the same curve through the same folds to the same
// end; the recorded μ_max is the dense solver's at every point, and the sign of 1 − λ μ_max is exact.
TEST(EmLambdaCurve, PredictedStopAndQuickLanczosFollowTheSameCurve) {
  const Problem p = FoldingProblem();
  const PathResult normal = TraceCurve(p, CurveOptions(PathSolver::kDense));
  EmLambdaCurveOptions o = CurveOptions(PathSolver::kMatrixFree);
  o.tracker.pseudo_arclength = true;
  o.tracker.predicted_stop = true;
  o.gmres_recycle = 100;
  o.step_gmres_tol = 1e-4;
  o.linear.lanczos.rel_tol = 1e-6;
  o.linear.lanczos.value_rel_tol = 1e-8;
  const PathResult r = TraceCurve(p, o);
  ASSERT_EQ(r.stop, PathStop::kReachedEnd);
  EXPECT_EQ(Turns(r), 2);
  EXPECT_GT(r.solve_products, 0);
  EXPECT_GT(r.spectrum_products, 0);
  for (const PathPoint& q : r.points) {
    EXPECT_LE(q.residual, 1e-8);
    EmJacobian em(p.layout, p.supervised, q.theta_tilde, p.unlabeled, 1);
    const Eigen::MatrixXd c = em.covariance().Dense() / static_cast<double>(p.unlabeled.size());
    const double mu = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(SymmetrizeDense(p.layout, q.theta_tilde, c))
                          .eigenvalues()
                          .maxCoeff();
    EXPECT_LE(std::abs(q.mu_max - mu), 1e-7 * mu) << "lambda " << q.lambda;
    EXPECT_EQ(q.det_sign, q.lambda * mu > 1 ? -1 : 1) << "lambda " << q.lambda;
  }
  EXPECT_LE((r.points.back().theta_tilde - normal.points.back().theta_tilde).cwiseAbs().maxCoeff(), 1e-7);
}

// How far 50 EM_λ updates at q's λ move Θ̃ from q (max norm).
double EmLambdaMove(const Problem& p, const PathPoint& q) {
  const HmmParams model = p.layout.ToHmm(q.theta_tilde, p.supervised);
  const EmLambdaResult em = ValueOrThrow(RunEmLambda(model, q.lambda, p.em0, p.unlabeled, p.layout, {50, 0.0, 1}));
  return (em.theta_tilde - q.theta_tilde).cwiseAbs().maxCoeff();
}

// A point of the curve is a fixed point of EM_λ at its λ: EM_λ warm-started there stays there.
TEST(EmLambdaCurve, PointsAreEmLambdaFixedPoints) {
  const Problem p = FoldingProblem();
  const PathResult r = TraceCurve(p, CurveOptions(PathSolver::kMatrixFree));
  for (size_t k : {size_t{3}, r.points.size() / 2}) EXPECT_LE(EmLambdaMove(p, r.points[k]), 1e-8) << k;
}

// Where the EM_λ curve is regular (λ rises along it, no fold), every point is the fixed point EM_λ
// reaches from the supervised start at that λ, run to convergence (not warm-started at the point):
// the tracker follows the branch EM itself finds. Three generated problems (K = 3, V = 6 and 12).
// EM converges linearly, slowest at λ = 1 (5e-7 from the point after 15,000 updates on V = 12,
// 1e-15 elsewhere): 20,000 updates.
TEST(EmLambdaCurve, OnARegularCurveEveryPointIsWhereEmLambdaConvergesFromTheStart) {
  for (const auto& [v, seed] : {std::pair{6, 21}, std::pair{6, 31}, std::pair{12, 41}}) {
    SCOPED_TRACE(testing::Message() << "V=" << v << " seed=" << seed);
    const Problem p = MakeProblem(FreeBlocks{false, false, true}, 3, v, 30, 60, 10, seed);
    const PathResult r = TraceCurve(p, CurveOptions(PathSolver::kDense));
    ASSERT_EQ(r.stop, PathStop::kReachedEnd);
    ASSERT_EQ(Turns(r), 0);
    for (const PathPoint& q : r.points) EXPECT_LE(q.residual, 1e-8);
    for (size_t k : {r.points.size() / 4, r.points.size() / 2, r.points.size() - 1}) {
      const PathPoint& q = r.points[k];
      const EmLambdaResult em =
          ValueOrThrow(RunEmLambda(p.supervised, q.lambda, p.em0, p.unlabeled, p.layout, {20000, 0.0, 1}));
      EXPECT_LE((em.theta_tilde - q.theta_tilde).cwiseAbs().maxCoeff(), 1e-6) << "lambda " << q.lambda;
    }
  }
}

TEST(EmLambdaCurve, ThreadCountDoesNotChangeThePath) {
  const Problem p = FoldingProblem();
  EmLambdaCurveOptions o = CurveOptions(PathSolver::kMatrixFree);
  const PathResult one = TraceCurve(p, o);
  o.threads = 2;
  const PathResult two = TraceCurve(p, o);
  ASSERT_EQ(one.points.size(), two.points.size());
  for (size_t k = 0; k < one.points.size(); ++k) {
    EXPECT_EQ(one.points[k].s, two.points[k].s);
    EXPECT_EQ(one.points[k].theta_tilde, two.points[k].theta_tilde);
    EXPECT_EQ(one.points[k].mu_max, two.points[k].mu_max);
  }
}

void ExpectSamePoints(const PathResult& a, const PathResult& b) {
  ASSERT_EQ(a.stop, b.stop);
  ASSERT_EQ(a.points.size(), b.points.size());
  for (size_t k = 0; k < a.points.size(); ++k) {
    const PathPoint& x = a.points[k];
    const PathPoint& y = b.points[k];
    EXPECT_EQ(x.s, y.s) << k;
    EXPECT_EQ(x.lambda, y.lambda) << k;
    EXPECT_EQ(x.dlambda_ds, y.dlambda_ds) << k;
    EXPECT_EQ(x.mu_max, y.mu_max) << k;
    EXPECT_EQ(x.det_sign, y.det_sign) << k;
    EXPECT_EQ(x.entropy, y.entropy) << k;
    EXPECT_EQ(x.residual, y.residual) << k;
    EXPECT_EQ(x.step, y.step) << k;
    EXPECT_EQ(x.corrector_iterations, y.corrector_iterations) << k;
    EXPECT_EQ(x.reentry, y.reentry) << k;
    EXPECT_EQ(x.theta_tilde, y.theta_tilde) << k;
  }
}

// Every state offered along the folding curve, resumed, ends with the uninterrupted trace's bits
// (matrix-free: the Lanczos warm start is part of the state, dense: all eigenvalues).
TEST(EmLambdaCurve, ATraceResumedFromAnyCheckpointEndsWithTheSameBits) {
  const Problem p = FoldingProblem();
  for (PathSolver solver : {PathSolver::kMatrixFree, PathSolver::kDense}) {
    const EmLambdaCurveOptions o = CurveOptions(solver);
    std::vector<std::string> states;
    KernelCheckpoints keep;
    keep.offer = [&](const std::function<StatePieces()>& encode) { states.push_back(encode().Join()); };
    const PathResult whole =
        ValueOrThrow(TraceEmLambdaCurve(p.layout, p.supervised, p.em0, p.unlabeled, o, {}, keep));
    ExpectSamePoints(whole, TraceCurve(p, o));
    ASSERT_GE(states.size(), whole.points.size() - 3) << "a state after each tracked point";
    for (size_t i = 0; i < states.size(); i += 4) {
      SCOPED_TRACE(i);
      KernelCheckpoints from;
      from.resume_from = &states[i];
      ExpectSamePoints(whole, ValueOrThrow(TraceEmLambdaCurve(p.layout, p.supervised, p.em0, p.unlabeled, o, {}, from)));
    }
  }
}

// A trace stopped by max_steps keeps its state; continued with a larger budget it ends with the
// bits of a trace run with that budget from the start.
TEST(EmLambdaCurve, ATraceStoppedByItsBudgetContinuesToTheLargerBudgetsBits) {
  const Problem p = FoldingProblem();
  EmLambdaCurveOptions o = CurveOptions(PathSolver::kMatrixFree);
  const PathResult whole = TraceCurve(p, o);
  ASSERT_EQ(whole.stop, PathStop::kReachedEnd);
  o.tracker.max_steps = 7;
  std::string kept;
  int64_t kept_steps = 0;
  KernelCheckpoints keep;
  keep.keep_final = [&](int64_t steps, const std::function<std::string()>& encode) {
    kept_steps = steps;
    kept = encode();
  };
  const PathResult short_trace =
      ValueOrThrow(TraceEmLambdaCurve(p.layout, p.supervised, p.em0, p.unlabeled, o, {}, keep));
  ASSERT_EQ(short_trace.stop, PathStop::kMaxSteps);
  EXPECT_EQ(kept_steps, 7);
  ASSERT_FALSE(kept.empty());
  o.tracker.max_steps = CurveOptions(PathSolver::kMatrixFree).tracker.max_steps;
  KernelCheckpoints from;
  from.resume_from = &kept;
  ExpectSamePoints(whole, ValueOrThrow(TraceEmLambdaCurve(p.layout, p.supervised, p.em0, p.unlabeled, o, {}, from)));
}

// A tracker made to stall before the fold (tangents may turn by 2.6° a step at most, steps no
// shorter than 3e-3): the step collapses at λ ≈ 0.934, where the curve bends. With re-entries the
// trace goes on from EM_λ's fixed point 0.01 further in λ, again wherever it stalls, to λ = 1.
EmLambdaCurveOptions StallingOptions(PathSolver solver) {
  EmLambdaCurveOptions o = CurveOptions(solver);
  o.tracker.min_step = 3e-3;
  o.tracker.min_tangent_cosine = 0.999;
  o.reentry_gap = 0.01;
  return o;
}

TEST(EmLambdaCurve, ReentersWhereTheStepStallsAndGoesOnToLambdaOne) {
  const Problem p = FoldingProblem();
  for (PathSolver solver : {PathSolver::kDense, PathSolver::kMatrixFree}) {
    SCOPED_TRACE(solver == PathSolver::kDense ? "dense" : "matrix-free");
    EmLambdaCurveOptions o = StallingOptions(solver);
    const PathResult stalled = TraceCurve(p, o);
    ASSERT_EQ(stalled.stop, PathStop::kStepTooSmall);
    EXPECT_LT(stalled.points.back().lambda, 0.95);
    EXPECT_EQ(stalled.reentries, 0);
    o.max_reentries = 10;
    const PathResult r = TraceCurve(p, o);
    ASSERT_EQ(r.stop, PathStop::kReachedEnd);
    EXPECT_EQ(r.points.back().lambda, 1.0);
    EXPECT_GE(r.reentries, 1);
    EXPECT_LE(r.reentries, 10);
    // Up to the stall the traces are one; the first re-entry is reentry_gap past the stalled point.
    ASSERT_GT(r.points.size(), stalled.points.size());
    for (size_t k = 0; k < stalled.points.size(); ++k) {
      EXPECT_EQ(r.points[k].theta_tilde, stalled.points[k].theta_tilde) << k;
      EXPECT_FALSE(r.points[k].reentry) << k;
    }
    EXPECT_TRUE(r.points[stalled.points.size()].reentry);
    EXPECT_EQ(r.points[stalled.points.size()].lambda, stalled.points.back().lambda + o.reentry_gap);
    int flagged = 0;
    for (size_t k = 1; k < r.points.size(); ++k) {
      const PathPoint& q = r.points[k];
      EXPECT_GT(q.s, r.points[k - 1].s) << k;
      if (!q.reentry) continue;
      ++flagged;
      EXPECT_NEAR(q.lambda, r.points[k - 1].lambda + o.reentry_gap, 1e-15) << k;
      EXPECT_LE(q.residual, 1e-9) << k;
      EXPECT_LE(EmLambdaMove(p, q), 1e-8) << k;
    }
    EXPECT_EQ(flagged, r.reentries);
  }
}

// A re-entry from a point already re-entered from (to within kSameStall) takes twice the gap,
// once more for each earlier one; re-entries from other points leave it alone.
TEST(EmLambdaCurve, AReentryFromAPointReenteredFromBeforeDoublesItsGap) {
  auto point = [](double lambda, double theta0, bool reentry) {
    PathPoint q;
    q.lambda = lambda;
    q.theta_tilde = Eigen::Vector2d(theta0, 0.5);
    q.reentry = reentry;
    return q;
  };
  const Eigen::Vector2d stalled(0.3, 0.5);
  std::vector<PathPoint> points = {point(0, 0.1, false), point(0.2, 0.3, false), point(0.21, 0.31, true)};
  EXPECT_EQ(ReentryGap(points, stalled, 0.2, 0.01), 0.02);
  EXPECT_EQ(ReentryGap(points, stalled, 0.2 + 2 * kSameStall, 0.01), 0.01);  // another λ
  EXPECT_EQ(ReentryGap(points, Eigen::Vector2d(0.3 + 2 * kSameStall, 0.5), 0.2, 0.01), 0.01);  // another Θ̂
  EXPECT_EQ(ReentryGap(points, stalled, 0.2 + kSameStall / 2, 0.01), 0.02);  // the same point, to within
  // A point equal to the stalled one that was not re-entered from does not count.
  points.push_back(point(0.2, 0.3, false));
  points.push_back(point(0.25, 0.35, false));
  EXPECT_EQ(ReentryGap(points, stalled, 0.2, 0.01), 0.02);
  points.push_back(point(0.2, 0.3, false));
  points.push_back(point(0.22, 0.32, true));
  EXPECT_EQ(ReentryGap(points, stalled, 0.2, 0.01), 0.04);
  EXPECT_EQ(ReentryGap({}, stalled, 0.2, 0.01), 0.01);
}

// Where nothing stalls, re-entries allowed change nothing.
TEST(EmLambdaCurve, ReentriesLeaveATraceThatDoesNotStallAlone) {
  const Problem p = FoldingProblem();
  EmLambdaCurveOptions o = CurveOptions(PathSolver::kDense);
  const PathResult plain = TraceCurve(p, o);
  o.max_reentries = 5;
  const PathResult allowed = TraceCurve(p, o);
  EXPECT_EQ(allowed.reentries, 0);
  ExpectSamePoints(plain, allowed);
}

// The states offered after a re-entry carry the segment (its arc-length offset, its steps, the
// re-entries so far): resumed, they end with the uninterrupted trace's bits.
TEST(EmLambdaCurve, ATraceResumedAfterAReentryEndsWithTheSameBits) {
  const Problem p = FoldingProblem();
  EmLambdaCurveOptions o = StallingOptions(PathSolver::kDense);
  o.max_reentries = 10;
  std::vector<std::string> states;
  KernelCheckpoints keep;
  keep.offer = [&](const std::function<StatePieces()>& encode) { states.push_back(encode().Join()); };
  const PathResult whole = ValueOrThrow(TraceEmLambdaCurve(p.layout, p.supervised, p.em0, p.unlabeled, o, {}, keep));
  ASSERT_GE(whole.reentries, 2);
  const size_t first_reentry = std::find_if(whole.points.begin(), whole.points.end(),
                                            [](const PathPoint& q) { return q.reentry; }) -
                               whole.points.begin();
  ASSERT_LT(first_reentry + 3, states.size());
  for (size_t i = first_reentry; i < states.size(); i += 11) {
    SCOPED_TRACE(i);
    KernelCheckpoints from;
    from.resume_from = &states[i];
    ExpectSamePoints(whole, ValueOrThrow(TraceEmLambdaCurve(p.layout, p.supervised, p.em0, p.unlabeled, o, {}, from)));
  }
}

TEST(EmLambdaCurve, AStateOfAnotherPathIsRefused) {
  const Problem p = FoldingProblem();
  const Problem other = MakeProblem(FreeBlocks{false, false, true}, 2, 6, 30, 60, 10, 11);
  std::vector<std::string> states;
  KernelCheckpoints keep;
  keep.offer = [&](const std::function<StatePieces()>& encode) { states.push_back(encode().Join()); };
  ValueOrThrow(TraceEmLambdaCurve(other.layout, other.supervised, other.em0, other.unlabeled,
                                  CurveOptions(PathSolver::kDense), {}, keep));
  ASSERT_FALSE(states.empty());
  for (const std::string& bytes : {states[0], states[0].substr(0, states[0].size() / 2)}) {
    KernelCheckpoints from;
    from.resume_from = &bytes;
    Result<PathResult> r =
        TraceEmLambdaCurve(p.layout, p.supervised, p.em0, p.unlabeled, CurveOptions(PathSolver::kDense), {}, from);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalid) << r.status().ToString();
  }
}

TEST(EmLambdaCurve, CancellationIsReported) {
  const Problem p = FoldingProblem();
  std::atomic<bool> flag{false};
  PathCallbacks callbacks;
  callbacks.cancel = CancelToken(&flag);
  int seen = 0;
  callbacks.progress = [&](int, double) {
    if (++seen == 3) flag = true;
  };
  Result<PathResult> r =
      TraceEmLambdaCurve(p.layout, p.supervised, p.em0, p.unlabeled, CurveOptions(PathSolver::kDense), callbacks);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCancelled);
  EXPECT_EQ(seen, 3);
}

// The bytes of the first and the last state a trace of the folding curve offers and of the one it
// keeps, pinned: matrix-free (Lanczos's warm start is in the state), made to stall and re-enter,
// and stopped by max_steps one step past its re-entry (the state's segment starts there). A state
// saved by an earlier build must still resume (tests/testutil/state_fingerprint.h).
TEST(EmLambdaCurve, StateBytesAreThoseOfEarlierBuilds) {
  const Problem p = FoldingProblem();
  EmLambdaCurveOptions o = StallingOptions(PathSolver::kMatrixFree);
  o.max_reentries = 10;
  o.tracker.max_steps = 47;
  std::vector<std::string> states;
  std::string kept;
  KernelCheckpoints keep;
  keep.offer = [&](const std::function<StatePieces()>& encode) { states.push_back(encode().Join()); };
  keep.keep_final = [&](int64_t, const std::function<std::string()>& encode) { kept = encode(); };
  const PathResult r = ValueOrThrow(TraceEmLambdaCurve(p.layout, p.supervised, p.em0, p.unlabeled, o, {}, keep));
  ASSERT_EQ(r.stop, PathStop::kMaxSteps);
  ASSERT_EQ(r.reentries, 1);
  ASSERT_GE(states.size(), 2u);
  const uint64_t first = testutil::StateFingerprint(states.front()), last = testutil::StateFingerprint(states.back()),
                 final_state = testutil::StateFingerprint(kept);
  EXPECT_EQ(first, 0xf59dfacf1a42e2beULL) << std::hex << "0x" << first;
  EXPECT_EQ(last, 0x98c7cf94b85261e8ULL) << std::hex << "0x" << last;
  EXPECT_EQ(final_state, 0x98c7cf94b85261e8ULL) << std::hex << "0x" << final_state;
}

}  // namespace em_lambda_curve_test
}  // namespace seqflow

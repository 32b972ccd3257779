#include "nodes/optim/lbfgs.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <limits>

#include "nodes/optim/correction_history.h"
#include "nodes/optim/line_search.h"

namespace seqflow {
namespace lbfgs_test {

// Extended Rosenbrock: sum over pairs of 100 (x2 - x1^2)^2 + (1 - x1)^2; minimum 0 at all ones.
// The options these tests were written against: 6 correction pairs in double precision (the
// defaults before LbfgsOptions took crf.train's 4 in single precision).
LbfgsOptions Classic() {
  LbfgsOptions o;
  o.memory = 6;
  o.float_history = false;
  return o;
}

class Rosenbrock : public Objective {
 public:
  double Evaluate(const Eigen::VectorXd& x, Eigen::VectorXd& g) override {
    g.setZero(x.size());
    double f = 0;
    for (Eigen::Index i = 0; i + 1 < x.size(); i += 2) {
      const double a = x[i + 1] - x[i] * x[i], b = 1 - x[i];
      f += 100 * a * a + b * b;
      g[i] += -400 * a * x[i] - 2 * b;
      g[i + 1] += 200 * a;
    }
    ++calls;
    return f;
  }
  int calls = 0;
};

// f = ½ (x - c)ᵀ A (x - c) with A diagonal and badly conditioned.
class Quadratic : public Objective {
 public:
  explicit Quadratic(int n) : a(n), c(n) {
    for (int i = 0; i < n; ++i) a[i] = std::pow(10.0, 3.0 * i / (n - 1)), c[i] = std::sin(i + 1.0);
  }
  double Evaluate(const Eigen::VectorXd& x, Eigen::VectorXd& g) override {
    const Eigen::VectorXd r = x - c;
    g = a.cwiseProduct(r);
    return 0.5 * r.dot(g);
  }
  Eigen::VectorXd a, c;
};

class NanAfter : public Objective {
 public:
  double Evaluate(const Eigen::VectorXd& x, Eigen::VectorXd& g) override {
    g = x;
    return x.norm() < 0.5 ? std::numeric_limits<double>::quiet_NaN() : 0.5 * x.squaredNorm();
  }
};

TEST(Lbfgs, FindsRosenbrockMinimum) {
  for (bool float_history : {false, true}) {
    Rosenbrock f;
    Eigen::VectorXd x = Eigen::VectorXd::Constant(20, -1.2);
    for (int i = 1; i < 20; i += 2) x[i] = 1.0;
    LbfgsOptions o = Classic();
    o.float_history = float_history;
    o.delta = 0;  // stop on the gradient only
    o.gradient_tolerance = 1e-8;
    const LbfgsResult r = ValueOrThrow(MinimizeLbfgs(f, x, o));
    EXPECT_EQ(r.stop, LbfgsStop::kGradient) << r.message;
    EXPECT_LT((x - Eigen::VectorXd::Ones(20)).norm(), 1e-6) << "float_history " << float_history;
    EXPECT_LT(r.iterations, 200);
    EXPECT_EQ(r.evaluations, f.calls);
  }
}

TEST(Lbfgs, SolvesIllConditionedQuadratic) {
  Quadratic f(50);
  Eigen::VectorXd x = Eigen::VectorXd::Zero(50);
  LbfgsOptions o = Classic();
  o.delta = 0;
  o.gradient_tolerance = 1e-10;
  const LbfgsResult r = ValueOrThrow(MinimizeLbfgs(f, x, o));
  EXPECT_EQ(r.stop, LbfgsStop::kGradient);
  EXPECT_LT((x - f.c).norm(), 1e-8);
}

TEST(Lbfgs, ObjectiveNeverIncreasesAndCallbackSeesEveryIteration) {
  Rosenbrock f;
  Eigen::VectorXd x = Eigen::VectorXd::Constant(10, 0.3);
  double last = std::numeric_limits<double>::infinity();
  int seen = 0;
  const LbfgsResult r = ValueOrThrow(MinimizeLbfgs(f, x, Classic(), [&](const LbfgsIteration& it) {
    EXPECT_LE(it.objective, last);
    EXPECT_EQ(it.iteration, ++seen);
    last = it.objective;
  }));
  EXPECT_EQ(seen, r.iterations);
  EXPECT_EQ(r.objective, last);
}

TEST(Lbfgs, RelativeDecreaseStopsEarly) {
  Rosenbrock f;
  Eigen::VectorXd x = Eigen::VectorXd::Constant(10, 0.3);
  LbfgsOptions o = Classic();
  o.delta = 1e-2;
  o.past = 3;
  o.gradient_tolerance = 0;
  const LbfgsResult r = ValueOrThrow(MinimizeLbfgs(f, x, o));
  EXPECT_EQ(r.stop, LbfgsStop::kConverged);
  EXPECT_GE(r.iterations, 4);  // needs `past` iterations of history first
}

TEST(Lbfgs, CancelledTokenStopsWithCancelledStatus) {
  Rosenbrock f;
  Eigen::VectorXd x = Eigen::VectorXd::Constant(10, 0.3);
  std::atomic<bool> stop{false};
  int seen = 0;
  const Result<LbfgsResult> r = MinimizeLbfgs(
      f, x, Classic(),
      [&](const LbfgsIteration& it) {
        seen = it.iteration;
        stop = it.iteration == 3;
      },
      CancelToken(&stop));
  EXPECT_EQ(r.status().code(), StatusCode::kCancelled);
  EXPECT_EQ(seen, 3);
}

TEST(Lbfgs, MaxIterations) {
  Rosenbrock f;
  Eigen::VectorXd x = Eigen::VectorXd::Constant(10, 0.3);
  LbfgsOptions o = Classic();
  o.max_iterations = 4;
  EXPECT_EQ(ValueOrThrow(MinimizeLbfgs(f, x, o)).stop, LbfgsStop::kMaxIterations);
}

TEST(Lbfgs, NanIsANumericalFailure) {
  NanAfter f;
  Eigen::VectorXd x = Eigen::VectorXd::Constant(3, 2.0);
  const Result<LbfgsResult> r = MinimizeLbfgs(f, x, Classic());
  EXPECT_EQ(r.status().code(), StatusCode::kNumerical);
  EXPECT_NE(r.status().message().find("NaN"), std::string::npos);
}

TEST(Lbfgs, SameIteratesForAnyThreadCount) {
  // Long enough that the vector passes are split into several blocks.
  std::vector<Eigen::VectorXd> results;
  for (int threads : {1, 3}) {
    Quadratic f(600000);
    Eigen::VectorXd x = Eigen::VectorXd::Zero(600000);
    LbfgsOptions o = Classic();
    o.threads = threads;
    o.max_iterations = 15;
    o.float_history = true;
    ASSERT_TRUE(MinimizeLbfgs(f, x, o).ok());
    results.push_back(x);
  }
  EXPECT_EQ(results[0], results[1]);
}

// The textbook two-loop recursion (Nocedal & Wright, Alg. 7.4) over explicit pairs, oldest first.
Eigen::VectorXd TwoLoopDirection(const std::vector<Eigen::VectorXd>& s, const std::vector<Eigen::VectorXd>& y,
                                 const Eigen::VectorXd& g) {
  Eigen::VectorXd q = g;
  const int m = static_cast<int>(s.size());
  std::vector<double> alpha(m);
  for (int i = m - 1; i >= 0; --i) {
    alpha[i] = s[i].dot(q) / s[i].dot(y[i]);
    q -= alpha[i] * y[i];
  }
  q *= s.back().dot(y.back()) / y.back().squaredNorm();
  for (int i = 0; i < m; ++i) q += (alpha[i] - y[i].dot(q) / s[i].dot(y[i])) * s[i];
  return -q;
}

TEST(CorrectionHistory, CompactFormEqualsTwoLoopRecursion) {
  Quadratic f(40);
  Eigen::VectorXd x = Eigen::VectorXd::Zero(40), g, g_next;
  Eigen::VectorXd d;
  CorrectionHistory<double> history(40, 4);
  std::vector<Eigen::VectorXd> s, y;
  f.Evaluate(x, g);
  for (int k = 0; k < 9; ++k) {  // more steps than pairs: the oldest are dropped
    history.Direction(g, d);
    if (k > 0) {
      const Eigen::VectorXd want = TwoLoopDirection(s, y, g);
      EXPECT_LT((d - want).norm(), 1e-10 * want.norm()) << "step " << k;
    }
    const double step = 0.3 + 0.05 * k;
    const Eigen::VectorXd direction = d;
    history.Begin(d);
    EXPECT_EQ(history.PendingDirection(), direction);
    x += step * direction;
    f.Evaluate(x, g_next);
    history.Complete(step, g_next);
    s.push_back(step * direction);
    y.push_back(g_next - g);
    if (s.size() > 4) s.erase(s.begin()), y.erase(y.begin());
    g = g_next;
  }
}

TEST(WolfeLineSearch, AcceptedPointSatisfiesStrongWolfe) {
  Quadratic f(5);
  Eigen::VectorXd x = Eigen::VectorXd::Zero(5), g;
  const double f0 = f.Evaluate(x, g);
  const Eigen::VectorXd d = -g;
  const double slope0 = g.dot(d);
  for (double initial : {1e-4, 1.0, 100.0}) {
    Eigen::VectorXd xs = x, gs = g;
    const LineSearchResult r = WolfeLineSearch(f, xs, gs, d, f0, slope0, initial, 1e-4, 0.1, 40);
    ASSERT_TRUE(r.ok) << initial;
    EXPECT_LE(r.f, f0 + 1e-4 * r.step * slope0);
    EXPECT_LE(std::abs(gs.dot(d)), 0.1 * std::abs(slope0) + 1e-12);
    Eigen::VectorXd check;
    EXPECT_DOUBLE_EQ(f.Evaluate(xs, check), r.f);  // x and g are left at the accepted point
    EXPECT_TRUE(check.isApprox(gs));
    // x moves in place from trial to trial, so it carries the round-off of the walk.
    EXPECT_LT((xs - (x + r.step * d)).norm(), 1e-10 * xs.norm()) << initial;
  }
}

}  // namespace lbfgs_test
}  // namespace seqflow

#include "nodes/optim/box_lbfgs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "nodes/optim/lbfgs.h"

namespace seqflow {
namespace box_lbfgs_test {

constexpr double kInf = std::numeric_limits<double>::infinity();

// f = ½ xᵀQx + cᵀx.
class Quadratic : public Objective {
 public:
  Quadratic(Eigen::MatrixXd hessian, Eigen::VectorXd linear) : q(std::move(hessian)), c(std::move(linear)) {}
  double Evaluate(const Eigen::VectorXd& x, Eigen::VectorXd& g) override {
    ++calls;
    g = q * x + c;
    return 0.5 * x.dot(q * x) + c.dot(x);
  }
  Eigen::MatrixXd q;  // [n x n] SPD
  Eigen::VectorXd c;
  int calls = 0;
};

// A random SPD quadratic whose unconstrained minimiser lies in [-2, 2]^n, and a box with
// lower in [-1, -0.1], upper in [0.1, 1], so that about half the bounds bind.
struct BoxProblem {
  Quadratic f;
  Eigen::VectorXd lower, upper;
};

BoxProblem RandomBoxProblem(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  auto random = [&](int rows, int cols) { return Eigen::MatrixXd::NullaryExpr(rows, cols, [&] { return u(rng); }); };
  const Eigen::MatrixXd a = random(n, n);
  const Eigen::MatrixXd q = a.transpose() * a + 0.1 * Eigen::MatrixXd::Identity(n, n);
  const Eigen::VectorXd unconstrained = 2 * random(n, 1);
  const Eigen::VectorXd lower = -0.55 + 0.45 * random(n, 1).array();
  const Eigen::VectorXd upper = 0.55 + 0.45 * random(n, 1).array();
  return {Quadratic(q, -q * unconstrained), lower, upper};
}

// The oracle for n <= 3: every pattern of (free, at lower, at upper) gives a candidate by solving
// the reduced system Q_FF x_F = -(c_F + Q_FB x_B); the box minimiser is the feasible candidate
// with the lowest objective (it is one of them, and every candidate is feasible).
Eigen::VectorXd BruteForceMinimizer(BoxProblem& p) {
  const int n = static_cast<int>(p.lower.size());
  Eigen::VectorXd best, g;
  double best_f = kInf;
  int patterns = 1;
  for (int i = 0; i < n; ++i) patterns *= 3;
  for (int pattern = 0; pattern < patterns; ++pattern) {
    Eigen::VectorXd x = Eigen::VectorXd::Zero(n);
    std::vector<int> free;
    for (int i = 0, code = pattern; i < n; ++i, code /= 3) {
      if (code % 3 == 0) free.push_back(i);
      if (code % 3 == 1) x[i] = p.lower[i];
      if (code % 3 == 2) x[i] = p.upper[i];
    }
    const Eigen::VectorXd rhs = -(p.f.c + p.f.q * x);
    const Eigen::VectorXd xf = p.f.q(free, free).ldlt().solve(rhs(free));
    x(free) = xf;
    if ((x.array() < p.lower.array()).any() || (x.array() > p.upper.array()).any()) continue;
    const double fx = p.f.Evaluate(x, g);
    if (fx < best_f) best_f = fx, best = x;
  }
  return best;
}

// KKT conditions of the box problem: interior components have g_i = 0, components at their lower
// bound g_i >= 0, at their upper bound g_i <= 0. Returns the number of components at a bound.
int ExpectKkt(const Eigen::VectorXd& x, const Eigen::VectorXd& g, const Eigen::VectorXd& lower,
              const Eigen::VectorXd& upper, double tol) {
  int at_bound = 0;
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    EXPECT_GE(x[i], lower[i]);
    EXPECT_LE(x[i], upper[i]);
    const bool at_lower = x[i] - lower[i] <= 1e-9, at_upper = upper[i] - x[i] <= 1e-9;
    if (at_lower) {
      EXPECT_GE(g[i], -tol) << "component " << i << " at its lower bound";
    }
    if (at_upper) {
      EXPECT_LE(g[i], tol) << "component " << i << " at its upper bound";
    }
    if (!at_lower && !at_upper) {
      EXPECT_LE(std::abs(g[i]), tol) << "interior component " << i;
    }
    at_bound += at_lower || at_upper;
  }
  return at_bound;
}

BoxLbfgsOptions Tight() {
  BoxLbfgsOptions o;
  o.gradient_tolerance = 1e-10;
  o.delta = 0;  // stop on the projected gradient only
  return o;
}

TEST(BoxLbfgs, RandomQuadraticsSatisfyKkt) {
  int at_bound = 0, components = 0;
  for (int n : {2, 3, 5, 10, 20, 30})
    for (unsigned seed = 1; seed <= 5; ++seed) {
      BoxProblem p = RandomBoxProblem(n, 100 * n + seed);
      Eigen::VectorXd x = Eigen::VectorXd::Zero(n), g;
      const BoxLbfgsResult r = ValueOrThrow(MinimizeInBox(p.f, x, p.lower, p.upper, Tight()));
      ASSERT_EQ(r.stop, BoxLbfgsStop::kGradient) << "n " << n << " seed " << seed << ": " << r.message;
      EXPECT_DOUBLE_EQ(r.objective, p.f.Evaluate(x, g));
      EXPECT_EQ(r.evaluations + 1, p.f.calls);
      at_bound += ExpectKkt(x, g, p.lower, p.upper, 1e-9);
      components += n;
    }
  // The problems exercise both kinds of component.
  EXPECT_GT(at_bound, components / 4);
  EXPECT_LT(at_bound, 3 * components / 4);
}

TEST(BoxLbfgs, SmallQuadraticsMatchBruteForce) {
  int at_bound = 0;
  for (int n : {2, 3})
    for (unsigned seed = 1; seed <= 40; ++seed) {
      BoxProblem p = RandomBoxProblem(n, 1000 * n + seed);
      const Eigen::VectorXd want = BruteForceMinimizer(p);
      Eigen::VectorXd x = Eigen::VectorXd::Constant(n, 0.05);
      const BoxLbfgsResult r = ValueOrThrow(MinimizeInBox(p.f, x, p.lower, p.upper, Tight()));
      EXPECT_EQ(r.stop, BoxLbfgsStop::kGradient) << r.message;
      EXPECT_LT((x - want).lpNorm<Eigen::Infinity>(), 1e-9) << "n " << n << " seed " << seed;
      at_bound += ((want - p.lower).array() == 0 || (want - p.upper).array() == 0).count();
    }
  EXPECT_GT(at_bound, 40);
}

TEST(BoxLbfgs, InteriorMinimumIsTheUnconstrainedOne) {
  BoxProblem p = RandomBoxProblem(12, 7);
  const Eigen::VectorXd analytic = p.f.q.ldlt().solve(-p.f.c);
  Eigen::VectorXd unconstrained = Eigen::VectorXd::Zero(12);
  LbfgsOptions lo;
  lo.memory = 6;  // as written before crf.train's 4 single-precision pairs became the default
  lo.float_history = false;
  lo.delta = 0;
  lo.gradient_tolerance = 1e-8;  // about as far as its Wolfe search on f values gets here
  ASSERT_EQ(ValueOrThrow(MinimizeLbfgs(p.f, unconstrained, lo)).stop, LbfgsStop::kGradient);
  ASSERT_LT((unconstrained - analytic).lpNorm<Eigen::Infinity>(), 1e-6);
  for (double width : {10.0, kInf}) {
    const Eigen::VectorXd lower = Eigen::VectorXd::Constant(12, -width), upper = Eigen::VectorXd::Constant(12, width);
    Eigen::VectorXd x = Eigen::VectorXd::Zero(12);
    const BoxLbfgsResult r = ValueOrThrow(MinimizeInBox(p.f, x, lower, upper, Tight()));
    EXPECT_EQ(r.stop, BoxLbfgsStop::kGradient) << r.message;
    EXPECT_LT((x - analytic).lpNorm<Eigen::Infinity>(), 1e-9) << "width " << width;
    EXPECT_LT((x - unconstrained).lpNorm<Eigen::Infinity>(), 1e-6) << "width " << width;
    EXPECT_LT(r.iterations, 100);
  }
}

// f = 100 (y - x²)² + (1 - x)², unconstrained minimum at (1, 1).
class Rosenbrock : public Objective {
 public:
  double Evaluate(const Eigen::VectorXd& v, Eigen::VectorXd& g) override {
    const double a = v[1] - v[0] * v[0], b = 1 - v[0];
    g.resize(2);
    g << -400 * a * v[0] - 2 * b, 200 * a;
    return 100 * a * a + b * b;
  }
};

TEST(BoxLbfgs, RosenbrockWithTheOptimumCutOff) {
  Rosenbrock f;
  // x <= 0.5: y = x² zeroes the first term, so the minimum is (0.5, 0.25) with x on its bound.
  Eigen::VectorXd v(2), g;
  v << -1.2, 1.0;
  BoxLbfgsResult r = ValueOrThrow(MinimizeInBox(f, v, Eigen::Vector2d(-2, -1), Eigen::Vector2d(0.5, 2), Tight()));
  EXPECT_EQ(r.stop, BoxLbfgsStop::kGradient) << r.message;
  EXPECT_LT((v - Eigen::Vector2d(0.5, 0.25)).norm(), 1e-9);
  // x <= 0.5, y <= 0.2: y stays on its bound and x solves 400 x (x² - 0.2) = 2 (1 - x) in
  // (√0.2, 0.5), where the left side minus the right increases.
  double lo = std::sqrt(0.2), hi = 0.5;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (400 * mid * (mid * mid - 0.2) - 2 * (1 - mid) < 0 ? lo : hi) = mid;
  }
  v << -1.2, 1.0;
  r = ValueOrThrow(MinimizeInBox(f, v, Eigen::Vector2d(-2, -1), Eigen::Vector2d(0.5, 0.2), Tight()));
  EXPECT_EQ(r.stop, BoxLbfgsStop::kGradient) << r.message;
  EXPECT_LT((v - Eigen::Vector2d(lo, 0.2)).norm(), 1e-9);
  f.Evaluate(v, g);
  EXPECT_LT(g[1], -0.1);  // y is held by its bound, not at a stationary point
}

// f = Σ_k b_k x_k + ½ c_k x_k² - a_k log x_k on [0, 1]: +inf on the faces x_k = 0, like the
// Dirichlet prior of HySOL's Γ. Stationary where c x² + b x - a = 0.
class Barrier : public Objective {
 public:
  double Evaluate(const Eigen::VectorXd& x, Eigen::VectorXd& g) override {
    g.resize(x.size());
    double f = 0;
    for (Eigen::Index k = 0; k < x.size(); ++k) {
      f += b[k] * x[k] + 0.5 * c[k] * x[k] * x[k] - a[k] * std::log(x[k]);
      g[k] = b[k] + c[k] * x[k] - a[k] / x[k];
    }
    return f;
  }
  Eigen::VectorXd a{{1e-4, 0.3, 2.0, 0.05}}, b{{1.0, 0.2, -1.0, 3.0}}, c{{1.0, 2.0, 1.0, 0.5}};
};

TEST(BoxLbfgs, LogBarrierConvergesToTheInteriorOptimum) {
  Barrier f;
  const Eigen::ArrayXd root =
      (-f.b.array() + (f.b.array().square() + 4 * f.a.array() * f.c.array()).sqrt()) / (2 * f.c.array());
  const Eigen::VectorXd want = root.min(1.0);  // the third component's root is above 1
  ASSERT_GT(root[2], 1.0);
  Eigen::VectorXd x = Eigen::VectorXd::Constant(4, 0.5);
  const BoxLbfgsResult r =
      ValueOrThrow(MinimizeInBox(f, x, Eigen::VectorXd::Zero(4), Eigen::VectorXd::Ones(4), Tight()));
  EXPECT_EQ(r.stop, BoxLbfgsStop::kGradient) << r.message;
  EXPECT_LT(((x - want).array() / want.array()).abs().maxCoeff(), 1e-8) << x.transpose();
  EXPECT_TRUE(std::isfinite(r.objective));
}

TEST(BoxLbfgs, StartOutsideTheBoxIsProjected) {
  BoxProblem p = RandomBoxProblem(2, 3);
  Eigen::VectorXd x(2);
  x << 5.0, -7.0;
  BoxLbfgsOptions o = Tight();
  o.max_iterations = 0;
  BoxLbfgsResult r = ValueOrThrow(MinimizeInBox(p.f, x, p.lower, p.upper, o));
  EXPECT_EQ(x, Eigen::Vector2d(p.upper[0], p.lower[1]));
  EXPECT_EQ(r.evaluations, 1);
  x << 5.0, -7.0;
  r = ValueOrThrow(MinimizeInBox(p.f, x, p.lower, p.upper, Tight()));
  EXPECT_EQ(r.stop, BoxLbfgsStop::kGradient);
  EXPECT_LT((x - BruteForceMinimizer(p)).lpNorm<Eigen::Infinity>(), 1e-9);
}

// f = 500 ‖x - (3, 1.5)‖², recording where it is evaluated.
class SteepBowl : public Objective {
 public:
  double Evaluate(const Eigen::VectorXd& x, Eigen::VectorXd& g) override {
    points.push_back(x);
    g = 1000 * (x - center);
    return 500 * (x - center).squaredNorm();
  }
  Eigen::VectorXd center{{3.0, 1.5}};
  std::vector<Eigen::VectorXd> points;
};

TEST(BoxLbfgs, FirstStepMovesAtMostOneOrTheBoxWidth) {
  // The gradient at 0 is (-3000, -1500): a unit step would jump by 3000.
  for (double width : {kInf, 0.25}) {
    SteepBowl f;
    Eigen::VectorXd x = Eigen::VectorXd::Zero(2);
    const Eigen::VectorXd lower = Eigen::VectorXd::Constant(2, width == kInf ? -kInf : 0.0);
    const BoxLbfgsResult r = ValueOrThrow(MinimizeInBox(f, x, lower, Eigen::VectorXd::Constant(2, width), Tight()));
    ASSERT_GE(f.points.size(), 2u);
    const double move = std::min(1.0, width);
    EXPECT_NEAR((f.points[1] - f.points[0]).lpNorm<Eigen::Infinity>(), move, 1e-15) << "width " << width;
    EXPECT_NEAR(f.points[1][1], 0.5 * move, 1e-15) << "the move follows -g";
    EXPECT_EQ(r.stop, BoxLbfgsStop::kGradient);
    EXPECT_LT((x - f.center.cwiseMin(width)).norm(), 1e-12);
  }
}

// ½‖x - 0.3‖², NaN where x_0 < 0.2: the first projected-gradient step from 1 lands there.
class NanBelow : public Objective {
 public:
  double Evaluate(const Eigen::VectorXd& x, Eigen::VectorXd& g) override {
    g = x.array() - 0.3;
    return x[0] < 0.2 ? std::numeric_limits<double>::quiet_NaN() : 0.5 * g.squaredNorm();
  }
};

TEST(BoxLbfgs, NanAtTrialPointsIsBacktrackedOver) {
  NanBelow f;
  Eigen::VectorXd x = Eigen::VectorXd::Ones(3);
  const BoxLbfgsResult r =
      ValueOrThrow(MinimizeInBox(f, x, Eigen::VectorXd::Zero(3), Eigen::VectorXd::Ones(3), Tight()));
  EXPECT_EQ(r.stop, BoxLbfgsStop::kGradient) << r.message;
  EXPECT_LT((x.array() - 0.3).abs().maxCoeff(), 1e-10);
}

TEST(BoxLbfgs, NanAtTheStartIsANumericalFailure) {
  NanBelow f;
  Eigen::VectorXd x = Eigen::VectorXd::Constant(3, -1.0);  // projected to 0, where f is NaN
  const Result<BoxLbfgsResult> r = MinimizeInBox(f, x, Eigen::VectorXd::Zero(3), Eigen::VectorXd::Ones(3), {});
  EXPECT_EQ(r.status().code(), StatusCode::kNumerical);
  EXPECT_NE(r.status().message().find("not finite"), std::string::npos);
}

TEST(BoxLbfgs, RelativeDecreaseAndIterationLimitStop) {
  Rosenbrock f;
  const Eigen::Vector2d lower(-2, -2), upper(2, 2);
  Eigen::VectorXd x(2);
  x << -1.2, 1.0;
  BoxLbfgsOptions o;
  o.gradient_tolerance = 0;
  o.delta = 1e-3;
  EXPECT_EQ(ValueOrThrow(MinimizeInBox(f, x, lower, upper, o)).stop, BoxLbfgsStop::kConverged);
  x << -1.2, 1.0;
  o.delta = 0;
  o.max_iterations = 3;
  const BoxLbfgsResult r = ValueOrThrow(MinimizeInBox(f, x, lower, upper, o));
  EXPECT_EQ(r.stop, BoxLbfgsStop::kMaxIterations);
  EXPECT_EQ(r.iterations, 3);
}

}  // namespace box_lbfgs_test
}  // namespace seqflow

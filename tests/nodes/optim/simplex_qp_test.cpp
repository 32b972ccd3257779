// The simplex QP (Eq. 14 / Eq. 26): KKT conditions on random instances, active-set enumeration
// on K <= 4, exact recovery, the λ = 1 limit, warm starts and errors.
#include "nodes/optim/simplex_qp.h"

#include <gtest/gtest.h>

#include <random>

#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace simplex_qp_test {

struct Instance {
  Eigen::MatrixXd a;
  Eigen::VectorXd beta;
};

Eigen::VectorXd RandomSimplexPoint(int k, std::mt19937_64& rng) {
  std::exponential_distribution<double> e(1.0);
  Eigen::VectorXd x(k);
  for (int i = 0; i < k; ++i) x[i] = e(rng);
  return x / x.sum();
}

// Eq. 26 through the Gram matrix: R is C x K of context moments (non-negative), q a column.
Instance RandomInstance(int k, int c, double lambda, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0, 1);
  Eigen::MatrixXd r(c, k);
  for (int i = 0; i < c; ++i)
    for (int j = 0; j < k; ++j) r(i, j) = u(rng) * u(rng);
  r.col(k - 1) = 0.7 * r.col(0) + 0.3 * r.col(k - 1);  // nearly collinear columns, as real anchors give
  Eigen::VectorXd q = r * RandomSimplexPoint(k, rng) + 0.05 * Eigen::VectorXd::NullaryExpr(c, [&] { return u(rng); });
  Eigen::VectorXd prior = RandomSimplexPoint(k, rng);
  Instance in;
  in.a = (1 - lambda) * r.transpose() * r + lambda * Eigen::MatrixXd::Identity(k, k);
  in.beta = (1 - lambda) * r.transpose() * q + lambda * prior;
  return in;
}

// KKT of min ½xᵀAx - βᵀx on the simplex: g = Ax - β; g_i >= ν everywhere with ν = min g, and
// g_i = ν wherever x_i > 0 (complementarity: Σ x_i (g_i - ν) = 0).
void ExpectKkt(const Instance& in, const Eigen::VectorXd& x, double tol) {
  EXPECT_NEAR(x.sum(), 1.0, 1e-12);
  EXPECT_GE(x.minCoeff(), 0.0);
  Eigen::VectorXd g = in.a * x - in.beta;
  const double nu = g.minCoeff();
  EXPECT_LE(x.dot(g.array().matrix() - Eigen::VectorXd::Constant(x.size(), nu)), tol);
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    if (x[i] > 1e-6) {
      EXPECT_LE(g[i] - nu, tol) << "coordinate " << i << " in the support";
    }
  }
}

// The optimum by enumerating supports: on each support S solve [A_SS 1; 1ᵀ 0][x; -ν] = [β_S; 1]
// and keep the best non-negative solution.
Eigen::VectorXd BruteForce(const Instance& in) {
  const int k = static_cast<int>(in.a.rows());
  Eigen::VectorXd best;
  double best_value = std::numeric_limits<double>::infinity();
  for (int mask = 1; mask < (1 << k); ++mask) {
    std::vector<int> s;
    for (int i = 0; i < k; ++i)
      if (mask & (1 << i)) s.push_back(i);
    const int n = static_cast<int>(s.size());
    Eigen::MatrixXd m = Eigen::MatrixXd::Zero(n + 1, n + 1);
    Eigen::VectorXd rhs(n + 1);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) m(i, j) = in.a(s[i], s[j]);
      m(i, n) = m(n, i) = 1;
      rhs[i] = in.beta[s[i]];
    }
    rhs[n] = 1;
    Eigen::VectorXd sol = m.fullPivLu().solve(rhs);
    Eigen::VectorXd x = Eigen::VectorXd::Zero(k);
    for (int i = 0; i < n; ++i) x[s[i]] = sol[i];
    if (x.minCoeff() < -1e-12 || std::abs(x.sum() - 1) > 1e-9) continue;
    const double value = 0.5 * x.dot(in.a * x) - in.beta.dot(x);
    if (value < best_value) best_value = value, best = x;
  }
  return best;
}

TEST(ProjectOntoSimplex, MatchesTheThresholdFoundByBisection) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> n(0, 2);
  for (int trial = 0; trial < 200; ++trial) {
    const int k = 1 + trial % 13;
    Eigen::VectorXd u = Eigen::VectorXd::NullaryExpr(k, [&] { return n(rng); }), x(k);
    ProjectOntoSimplex(u, x);
    // Σ max(u - θ, 0) = 1 is decreasing in θ: bisect it.
    double lo = u.minCoeff() - 1, hi = u.maxCoeff();
    for (int it = 0; it < 200; ++it) {
      const double mid = 0.5 * (lo + hi);
      ((u.array() - mid).max(0.0).sum() > 1 ? lo : hi) = mid;
    }
    Eigen::VectorXd expected = (u.array() - lo).max(0.0);
    EXPECT_LE((x - expected).cwiseAbs().maxCoeff(), 1e-12);
    EXPECT_NEAR(x.sum(), 1.0, 1e-12);
  }
}

TEST(ProjectOntoSimplex, KeepsPointsOfTheSimplexAndFindsVerticesAndTies) {
  Eigen::VectorXd x(4);
  const Eigen::Vector4d inside(0.1, 0.2, 0.3, 0.4);
  ProjectOntoSimplex(inside, x);
  EXPECT_LE((x - inside).cwiseAbs().maxCoeff(), 1e-15);
  ProjectOntoSimplex(Eigen::Vector4d(-3, 50, 2, 7), x);
  EXPECT_EQ(x, Eigen::Vector4d(0, 1, 0, 0));
  ProjectOntoSimplex(Eigen::Vector4d::Constant(-8), x);
  EXPECT_LE((x.array() - 0.25).abs().maxCoeff(), 1e-15);
  // Entries that sit at θ to the ulp: without a guard the support went 11 → 10 → 11 → … for ever
  // (a moments.anchor_fhmm on Twitter hung so).
  Eigen::VectorXd ulp_ties(12);
  ulp_ties << 0x1p-2, 0x1p-2, 0x0p+0, 0x1.9999999999999p-4, -0x1.5555555555554p-4, 0x1p-1, -0x1.5555555555555p-4,
      -0x1.5555555555554p-4, 0x1.d555555555555p-1, -0x1.9999999999999p-3, 0x1.9999999999999p-4, 0x1.5555555555555p-2;
  Eigen::VectorXd y(12);
  ProjectOntoSimplex(ulp_ties, y);
  EXPECT_NEAR(y.sum(), 1.0, 1e-15);
  EXPECT_GE(y.minCoeff(), 0.0);
  // Two tied largest entries a unit above the rest share the mass; the rest get none.
  ProjectOntoSimplex(Eigen::Vector4d(2, 1, 2, 1), x);
  EXPECT_LE((x - Eigen::Vector4d(0.5, 0, 0.5, 0)).cwiseAbs().maxCoeff(), 1e-15);
}

// Solves `in` from the uniform point.
Eigen::VectorXd Solved(const Instance& in, SimplexQpStats* stats = nullptr) {
  Result<SimplexQp> qp = SimplexQp::Create(in.a);
  EXPECT_TRUE(qp.ok()) << qp.status().ToString();
  Eigen::VectorXd x = Eigen::VectorXd::Constant(in.a.rows(), 1.0 / static_cast<double>(in.a.rows()));
  if (!qp.ok()) return x;
  Result<SimplexQpStats> r = qp->Solve(in.beta, x);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (r.ok()) {
    EXPECT_TRUE(r->converged) << "residual " << r->residual << " after " << r->iterations;
    if (stats) *stats = *r;
  }
  return x;
}

TEST(SimplexQp, AgreesWithActiveSetEnumerationForSmallK) {
  std::mt19937_64 rng(11);
  for (int k = 1; k <= 4; ++k)
    for (int trial = 0; trial < 60; ++trial) {
      Instance in = RandomInstance(k, 6, (trial % 3) * 0.4, rng);  // λ = 0, 0.4, 0.8
      Eigen::VectorXd x = Solved(in);
      Eigen::VectorXd best = BruteForce(in);
      ASSERT_EQ(best.size(), k);
      EXPECT_LE((x - best).cwiseAbs().maxCoeff(), 1e-6) << "K = " << k << " trial " << trial;
      EXPECT_LE(0.5 * x.dot(in.a * x) - in.beta.dot(x), 0.5 * best.dot(in.a * best) - in.beta.dot(best) + 1e-12);
    }
}

TEST(SimplexQp, SatisfiesKktOnRandomInstances) {
  std::mt19937_64 rng(3);
  for (int k : {2, 5, 12, 30, 50})
    for (int trial = 0; trial < 10; ++trial) {
      Instance in = RandomInstance(k, 2 * k + 40, trial % 2 ? 0.3 : 0.0, rng);
      // The solver's residual is in units of γ (a step of 1/L); gradients are L times larger.
      const double lipschitz = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(in.a).eigenvalues().maxCoeff();
      ExpectKkt(in, Solved(in), 1e-8 * lipschitz);
    }
}

TEST(SimplexQp, RecoversAnExactMixture) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(0, 1);
  const int k = 12;
  Eigen::MatrixXd r = Eigen::MatrixXd::NullaryExpr(80, k, [&] { return u(rng); });
  Eigen::VectorXd truth = RandomSimplexPoint(k, rng);
  truth[3] = 0;
  truth /= truth.sum();
  Instance in{r.transpose() * r, r.transpose() * (r * truth)};
  EXPECT_LE((Solved(in) - truth).cwiseAbs().maxCoeff(), 1e-6);
}

TEST(SimplexQp, LambdaOneReturnsTheSupervisedPosterior) {
  std::mt19937_64 rng(9);
  Eigen::VectorXd prior = RandomSimplexPoint(12, rng);
  Instance in{Eigen::MatrixXd::Identity(12, 12), prior};
  EXPECT_LE((Solved(in) - prior).cwiseAbs().maxCoeff(), 1e-9);
}

TEST(SimplexQp, WarmStartAtTheSolutionStopsAtOnce) {
  std::mt19937_64 rng(13);
  Instance in = RandomInstance(12, 60, 0.0, rng);
  SimplexQpStats cold;
  Eigen::VectorXd x = Solved(in, &cold);
  Result<SimplexQp> qp = SimplexQp::Create(in.a);
  ASSERT_OK(qp);
  Result<SimplexQpStats> warm = qp->Solve(in.beta, x);
  ASSERT_OK(warm);
  EXPECT_TRUE(warm->converged);
  EXPECT_EQ(warm->iterations, 0);
  EXPECT_GT(cold.iterations, 0);
}

TEST(SimplexQp, FinishesOnTheOptimumsFaceExactly) {
  // FISTA alone needs ~180 iterations on these instances (simplex_qp_bench); once its support
  // settles, the face's exact minimiser ends the solve within a few tests, at the optimum.
  std::mt19937_64 rng(17);
  int iterations = 0;
  for (int trial = 0; trial < 20; ++trial) {
    Instance in = RandomInstance(12, 200, 0.0, rng);
    SimplexQpStats stats;
    Eigen::VectorXd x = Solved(in, &stats);
    iterations += stats.iterations;
    const double lipschitz = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(in.a).eigenvalues().maxCoeff();
    ExpectKkt(in, x, 1e-12 * lipschitz);
  }
  EXPECT_LT(iterations, 20 * 60);
}

TEST(SimplexQp, Errors) {
  EXPECT_EQ(SimplexQp::Create(Eigen::MatrixXd::Zero(2, 3)).status().code(), StatusCode::kInvalid);
  EXPECT_EQ(SimplexQp::Create(Eigen::MatrixXd::Zero(3, 3)).status().code(), StatusCode::kNumerical);
  Eigen::MatrixXd nan = Eigen::MatrixXd::Identity(2, 2);
  nan(0, 1) = std::nan("");
  EXPECT_EQ(SimplexQp::Create(nan).status().code(), StatusCode::kNumerical);
  Result<SimplexQp> qp = SimplexQp::Create(Eigen::MatrixXd::Identity(2, 2));
  ASSERT_OK(qp);
  Eigen::VectorXd x = Eigen::VectorXd::Constant(2, 0.5);
  EXPECT_EQ(qp->Solve(Eigen::Vector2d(1, std::nan("")), x).status().code(), StatusCode::kNumerical);
  EXPECT_EQ(qp->Solve(Eigen::Vector3d(1, 2, 3), x).status().code(), StatusCode::kInvalid);
}

}  // namespace simplex_qp_test
}  // namespace seqflow

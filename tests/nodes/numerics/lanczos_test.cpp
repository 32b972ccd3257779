// Lanczos against a dense symmetric eigensolver, including a nearly tied largest eigenvalue
// (where power iteration stalls) and an invariant start.
#include "nodes/numerics/lanczos.h"

#include <gtest/gtest.h>

#include "nodes/common/random.h"

namespace seqflow {
namespace lanczos_test {

// Q diag(mu) Qᵀ with a random orthogonal Q.
Eigen::MatrixXd WithSpectrum(const Eigen::VectorXd& mu, uint64_t seed) {
  Rng rng = ShardRng(seed, 0);
  const Eigen::Index n = mu.size();
  Eigen::MatrixXd g(n, n);
  for (Eigen::Index i = 0; i < g.size(); ++i) g.data()[i] = Uniform01(rng) - 0.5;
  const Eigen::MatrixXd q = Eigen::HouseholderQR<Eigen::MatrixXd>(g).householderQ();
  return q * mu.asDiagonal() * q.transpose();
}

LinearOperator Product(const Eigen::MatrixXd& a) {
  return [&a](const Eigen::VectorXd& x) -> Eigen::VectorXd { return a * x; };
}

TEST(Lanczos, FindsTheLargestEigenpair) {
  const Eigen::VectorXd mu = Eigen::VectorXd::LinSpaced(200, 0.0, 2.0);
  const Eigen::MatrixXd a = WithSpectrum(mu, 1);
  const LanczosResult r = LargestEigenpair(Product(a), Eigen::VectorXd::Ones(200), {100, 1e-10});
  EXPECT_TRUE(r.converged);
  EXPECT_NEAR(r.value, 2.0, 1e-10);
  EXPECT_LE((a * r.vector - r.value * r.vector).norm(), 1e-8);
  EXPECT_NEAR(r.vector.norm(), 1.0, 1e-14);
}

// μ_2 / μ_1 = 0.9995: power iteration would need ~ 10^4 products for 1e-6; Lanczos needs ~ 10^2.
TEST(Lanczos, ResolvesANearlyTiedTopEigenvalue) {
  Eigen::VectorXd mu = Eigen::VectorXd::LinSpaced(300, 0.0, 1.0);
  mu[299] = 1.0005;
  const Eigen::MatrixXd a = WithSpectrum(mu, 2);
  const LanczosResult r = LargestEigenpair(Product(a), Eigen::VectorXd::LinSpaced(300, 1.0, 2.0), {150, 1e-12});
  EXPECT_NEAR(r.value, 1.0005, 1e-9);
  EXPECT_LT(r.iterations, 150);
}

TEST(Lanczos, InvariantStartAndZeroOperator) {
  const Eigen::MatrixXd a = Eigen::Vector3d(1.0, 2.0, 3.0).asDiagonal();
  const LanczosResult r = LargestEigenpair(Product(a), Eigen::Vector3d(1.0, 0.0, 0.0), {});
  EXPECT_TRUE(r.converged);  // the Krylov space of e_1 is invariant: only μ = 1 is reachable
  EXPECT_EQ(r.iterations, 1);
  EXPECT_DOUBLE_EQ(r.value, 1.0);
  const Eigen::MatrixXd zero = Eigen::MatrixXd::Zero(4, 4);
  const LanczosResult z = LargestEigenpair(Product(zero), Eigen::VectorXd::Ones(4), {});
  EXPECT_TRUE(z.converged);
  EXPECT_EQ(z.value, 0.0);
}

// The eigenvalue's error estimate r² / gap stops a warm start early, the value still within
// value_rel_tol of the dense solver's, and with far fewer products than the residual test needs.
TEST(Lanczos, ValueToleranceStopsAWarmStartEarlyWithTheRightValue) {
  Eigen::VectorXd mu = Eigen::VectorXd::LinSpaced(200, 0.0, 1.0);
  mu[199] = 1.3;
  const Eigen::MatrixXd a = WithSpectrum(mu, 3);
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> dense(a);
  Eigen::VectorXd warm = dense.eigenvectors().col(199) + 0.05 * Eigen::VectorXd::LinSpaced(200, -1.0, 1.0);
  const LanczosResult by_residual = LargestEigenpair(Product(a), warm, {100, 1e-10});
  const LanczosResult by_value = LargestEigenpair(Product(a), warm, {100, 1e-10, 1e-10});
  EXPECT_NEAR(by_residual.value, dense.eigenvalues()[199], 1e-12);
  EXPECT_TRUE(by_value.converged);
  EXPECT_LE(std::abs(by_value.value - dense.eigenvalues()[199]), 1e-10 * 1.3);
  EXPECT_LE(by_value.value, dense.eigenvalues()[199] + 1e-14);  // a Ritz value never exceeds μ_max
  EXPECT_LE(by_value.iterations, 0.6 * by_residual.iterations);
}

// With a threshold close to μ_max (1e-9 away: inside the value tolerance) the early stop waits
// until the side of μ_max is certain, on random spectra against the dense eigenvalues:
// value > threshold exactly when μ_max > threshold. (Without the threshold test 20 of these fail.)
TEST(Lanczos, ValueToleranceNeverMisplacesAThreshold) {
  for (uint64_t seed = 10; seed < 30; ++seed) {
    Eigen::VectorXd mu = Eigen::VectorXd::LinSpaced(60, 0.0, 1.0);
    mu[59] = 1.0 + 1e-3 * static_cast<double>(seed % 5);
    const Eigen::MatrixXd a = WithSpectrum(mu, seed);
    const double top = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(a).eigenvalues()[59];
    for (double threshold : {top - 1e-4, top + 1e-4, top - 1e-9, top + 1e-9}) {
      const LanczosResult r = LargestEigenpair(Product(a), Eigen::VectorXd::Ones(60), {60, 1e-12, 1e-6}, threshold);
      EXPECT_EQ(r.value > threshold, top > threshold) << "seed " << seed << " threshold - top " << threshold - top;
    }
  }
}

}  // namespace lanczos_test
}  // namespace seqflow

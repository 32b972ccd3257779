// J = ∂EM_1/∂Θ̃ = (1/|U|) Cov H (Eq. 8) against central finite differences of EM_1, the
// matrix-free product against the dense matrix, and the spectrum's claimed properties.
#include "nodes/homotopy/jacobian.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <complex>

#include "nodes/semi_supervised/em_lambda.h"
#include "tests/nodes/homotopy/homotopy_testutil.h"

namespace seqflow {
namespace jacobian_test {

using testutil::RandomCorpus;
using testutil::RandomHmm;

double MaxAbs(const Eigen::MatrixXd& m) { return m.size() == 0 ? 0.0 : m.cwiseAbs().maxCoeff(); }

// An unnormalised Θ̃: the model's probabilities with each multinomial scaled differently.
Eigen::VectorXd UnnormalizedTheta(const PomLayout& layout, const HmmParams& hmm) {
  Eigen::VectorXd theta = layout.Gather(hmm);
  double scale = 0.5;
  for (const MultinomialRange& m : layout.multinomials()) {
    theta.segment(m.offset, m.size) *= scale;
    scale += 0.7;
  }
  return theta;
}

Eigen::MatrixXd DenseH(const PomLayout& layout, const Eigen::VectorXd& theta) {
  const int P = layout.num_params();
  Eigen::MatrixXd h = Eigen::MatrixXd::Zero(P, P);
  for (const MultinomialRange& m : layout.multinomials()) {
    const auto t = theta.segment(m.offset, m.size);
    h.block(m.offset, m.offset, m.size, m.size).setConstant(-1.0 / t.sum());
    h.block(m.offset, m.offset, m.size, m.size).diagonal() += t.cwiseInverse();
  }
  return h;
}

const std::vector<FreeBlocks> kChoices = {{true, true, true}, {true, false, true}, {false, false, true}};

TEST(ApplyH, MatchesTheBlockMatrixAndAnnihilatesTheta) {
  const PomLayout layout(3, 4, FreeBlocks{true, true, true});
  const Eigen::VectorXd theta = UnnormalizedTheta(layout, RandomHmm(3, 4, 1, 0.1));
  const Eigen::MatrixXd h = DenseH(layout, theta);
  const Eigen::VectorXd v = Eigen::VectorXd::LinSpaced(layout.num_params(), -1, 3);
  EXPECT_LE(MaxAbs(ApplyH(layout, theta, v) - h * v), 1e-12);
  EXPECT_LE(MaxAbs(ApplyH(layout, theta, theta)), 1e-12);
  const Eigen::MatrixXd m = Eigen::MatrixXd::Random(5, layout.num_params());
  EXPECT_LE(MaxAbs(MultiplyH(layout, theta, m) - m * h), 1e-12);
  EXPECT_GE(Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(h).eigenvalues().minCoeff(), -1e-12);
}

TEST(EmJacobian, DenseMatchesCentralDifferencesOfEm1) {
  const HmmParams hmm = RandomHmm(3, 4, 2, 0.1);
  const IdSentences corpus = RandomCorpus(12, 1, 6, 4, 3);
  for (const FreeBlocks& free : kChoices) {
    const PomLayout layout(3, 4, free);
    const Eigen::VectorXd theta = UnnormalizedTheta(layout, hmm);
    const EmJacobian jac(layout, hmm, theta, corpus, 1);
    auto em1 = [&](const Eigen::VectorXd& t) { return Em1(layout, layout.ToHmm(t, hmm), corpus, 1).em1; };
    const Eigen::MatrixXd fd = testutil::CentralDifferences(em1, theta, 1e-6);
    const Eigen::MatrixXd dense = jac.Dense();
    EXPECT_LT(MaxAbs(dense - fd) / MaxAbs(fd), 1e-5) << "fd\n" << fd << "\ndense\n" << dense;
    EXPECT_LE(MaxAbs(jac.em1() - em1(theta)), 1e-12);
  }
}

// The paper prints H_m = diag(Θ̃_m) − 1 1ᵀ / Σ Θ̃_m; with Θ̃ not all ones that is not the derivative.
TEST(EmJacobian, ThePrintedFormOfHFailsTheDifferenceTest) {
  const HmmParams hmm = RandomHmm(2, 3, 4, 0.1);
  const IdSentences corpus = RandomCorpus(8, 2, 5, 3, 5);
  const PomLayout layout(2, 3, FreeBlocks{true, true, true});
  const Eigen::VectorXd theta = UnnormalizedTheta(layout, hmm);
  const EmJacobian jac(layout, hmm, theta, corpus, 1);
  Eigen::MatrixXd printed_h = DenseH(layout, theta);
  printed_h.diagonal() = printed_h.diagonal() - theta.cwiseInverse() + theta;
  const Eigen::MatrixXd printed = jac.covariance().Dense() * printed_h / 8.0;
  auto em1 = [&](const Eigen::VectorXd& t) { return Em1(layout, layout.ToHmm(t, hmm), corpus, 1).em1; };
  const Eigen::MatrixXd fd = testutil::CentralDifferences(em1, theta, 1e-6);
  EXPECT_GT(MaxAbs(printed - fd) / MaxAbs(fd), 1e-2);
}

TEST(EmJacobian, MatrixFreeProductMatchesDense) {
  const HmmParams hmm = RandomHmm(3, 7, 6, 0.1);
  const IdSentences corpus = RandomCorpus(40, 5, 25, 7, 7);
  for (const FreeBlocks& free : kChoices) {
    const PomLayout layout(3, 7, free);
    const Eigen::VectorXd theta = UnnormalizedTheta(layout, hmm);
    const EmJacobian jac(layout, hmm, theta, corpus, 2);
    const Eigen::MatrixXd dense = jac.Dense();
    for (int k = 0; k < 3; ++k) {
      const Eigen::VectorXd v = Eigen::VectorXd::LinSpaced(layout.num_params(), -1.0 + k, 2.0 - 3 * k);
      EXPECT_LE(MaxAbs(jac.Apply(v) - dense * v), 1e-11 * (1 + MaxAbs(dense * v)));
    }
  }
}

TEST(EmJacobian, EigenvaluesAreRealAndNonNegative) {
  const HmmParams hmm = RandomHmm(3, 5, 8, 0.1);
  const IdSentences corpus = RandomCorpus(30, 3, 10, 5, 9);
  const PomLayout layout(3, 5, FreeBlocks{true, true, true});
  const EmJacobian jac(layout, hmm, UnnormalizedTheta(layout, hmm), corpus, 1);
  const Eigen::VectorXcd eig = Eigen::EigenSolver<Eigen::MatrixXd>(jac.Dense()).eigenvalues();
  const double scale = eig.cwiseAbs().maxCoeff();
  EXPECT_GT(scale, 0.0);
  EXPECT_LE(eig.imag().cwiseAbs().maxCoeff(), 1e-8 * scale);
  EXPECT_GE(eig.real().minCoeff(), -1e-8 * scale);
}

// H = G Gᵀ, and S = Gᵀ (Cov/|U|) G has J's non-zero eigenvalues.
TEST(EmJacobian, SymmetrizedJacobianSharesTheSpectrum) {
  const HmmParams hmm = RandomHmm(3, 5, 10, 0.1);
  const IdSentences corpus = RandomCorpus(25, 3, 10, 5, 11);
  for (const FreeBlocks& free : kChoices) {
    const PomLayout layout(3, 5, free);
    const Eigen::VectorXd theta = UnnormalizedTheta(layout, hmm);
    const int P = layout.num_params();
    Eigen::MatrixXd g(P, P), gt(P, P);
    for (int i = 0; i < P; ++i) {
      g.col(i) = ApplyG(layout, theta, Eigen::VectorXd::Unit(P, i));
      gt.col(i) = ApplyGt(layout, theta, Eigen::VectorXd::Unit(P, i));
    }
    EXPECT_LE(MaxAbs(gt - g.transpose()), 1e-12);
    EXPECT_LE(MaxAbs(g * g.transpose() - DenseH(layout, theta)), 1e-10 * MaxAbs(DenseH(layout, theta)));
    const EmJacobian jac(layout, hmm, theta, corpus, 1);
    const Eigen::MatrixXd c = jac.covariance().Dense() / 25.0;
    const Eigen::MatrixXd s = SymmetrizeDense(layout, theta, c);
    EXPECT_LE(MaxAbs(s - g.transpose() * c * g), 1e-10 * MaxAbs(s));
    const Eigen::VectorXd v = Eigen::VectorXd::LinSpaced(P, -1.0, 1.5);
    EXPECT_LE(MaxAbs(jac.ApplySymmetric(v) - s * v), 1e-10 * MaxAbs(s * v));
    Eigen::VectorXd want = Eigen::EigenSolver<Eigen::MatrixXd>(jac.Dense()).eigenvalues().real();
    Eigen::VectorXd got = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(s).eigenvalues();
    std::sort(want.begin(), want.end());
    EXPECT_LE(MaxAbs(got - want), 1e-9 * want.maxCoeff());
  }
}

}  // namespace jacobian_test
}  // namespace seqflow

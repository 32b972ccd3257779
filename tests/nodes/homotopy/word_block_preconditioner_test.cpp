// The per-word block preconditioner of the EM_λ curve (word_block_preconditioner.h): exact where
// its approximation is (one-token sentences, H's rank-one term aside), and it is what lets GMRES
// solve the curve's bordered systems within a small product budget where rare words make λJ large.
#include "nodes/homotopy/word_block_preconditioner.h"

#include <gtest/gtest.h>

#include "nodes/hmm/supervised.h"
#include "nodes/homotopy/em_lambda_curve.h"
#include "nodes/homotopy/jacobian.h"
#include "nodes/semi_supervised/em_lambda.h"
#include "tests/nodes/homotopy/homotopy_testutil.h"

namespace seqflow {
namespace word_block_preconditioner_test {

using testutil::RandomHmm;
using testutil::SampleHmm;

const HmmSmoothing kSmoothing{0.2, 0.2, 0.05};

TEST(WordBlockPreconditioner, SymbolCountsCountTokens) {
  const IdSentences u = {{0, 2, 2}, {}, {1, 2}};
  const Eigen::VectorXd c = SymbolCounts(u, 4);
  EXPECT_EQ(c, Eigen::Vector4d(1, 1, 3, 0));
}

// With one-token sentences the emission counts of different words never co-occur and every token
// of a word has the same posterior, so Σ Cov is exactly blockdiag(B_w): the preconditioner is the
// inverse of I − (λ/|U|) Cov diag(m/Θ̃), the Jacobian's Θ̃ block without H's rank-one term.
TEST(WordBlockPreconditioner, ExactForOneTokenSentences) {
  const int K = 3, V = 5;
  const HmmParams truth = RandomHmm(K, V, 5, 0.1);
  const PomLayout layout(K, V, FreeBlocks{false, false, true});
  const auto labeled = SampleHmm(truth, 20, 2, 6, 6);
  const IdSentences unlabeled = SampleHmm(truth, 40, 1, 1, 7).words;
  const Eigen::VectorXd theta = Em0(layout, labeled.words, labeled.labels, kSmoothing);
  const HmmParams supervised = EstimateSupervisedHmm(labeled.words, labeled.labels, K, V, kSmoothing);
  const EmJacobian em(layout, supervised, theta, unlabeled, 1);
  Eigen::VectorXd mask = Eigen::VectorXd::Ones(layout.num_params());
  mask[4] = 0;
  const double lambda = 0.3;
  const double n = static_cast<double>(unlabeled.size());
  const WordBlockPreconditioner pre(layout, theta, mask, em.covariance().expected_counts(),
                                    SymbolCounts(unlabeled, V), n, lambda);
  Eigen::MatrixXd a = -lambda / n * em.covariance().Dense() * mask.cwiseQuotient(theta).asDiagonal();
  a.diagonal().array() += 1.0;
  for (Eigen::Index j = 0; j < a.cols(); ++j) {
    const Eigen::VectorXd x = pre.Apply(a.col(j));
    EXPECT_LE((x - Eigen::VectorXd::Unit(a.cols(), j)).cwiseAbs().maxCoeff(), 1e-12) << "column " << j;
  }
}

// Few labeled sentences and a vocabulary mostly unseen in them: emissions of ~ε/|L|, so λJ has
// eigenvalues in the hundreds at λ = 0.5. Within 60 GMRES products (it needs 31–60) the
// preconditioned tangent and Newton step match the dense back end's; unpreconditioned GMRES(50)
// does not converge within 1,000.
TEST(WordBlockPreconditioner, GmresConvergesWithinASmallBudget) {
  const int K = 4, V = 40;
  const HmmParams truth = RandomHmm(K, V, 21, 0.1);
  const PomLayout layout(K, V, FreeBlocks{false, false, true});
  const auto labeled = SampleHmm(truth, 6, 2, 5, 22);
  const IdSentences unlabeled = SampleHmm(truth, 300, 5, 15, 23).words;
  const HmmParams supervised = EstimateSupervisedHmm(labeled.words, labeled.labels, K, V, kSmoothing);
  const Eigen::VectorXd em0 = Em0(layout, labeled.words, labeled.labels, kSmoothing);
  const Eigen::Index P = layout.num_params();
  Eigen::VectorXd y(P + 1);
  y << em0, 0.5;
  EmLambdaCurveOptions dense_options;
  dense_options.solver = PathSolver::kDense;
  CurveEvaluation dense = ValueOrThrow(EmLambdaCurveMap(layout, supervised, em0, unlabeled, dense_options)(y));
  const Eigen::VectorXd orient = Eigen::VectorXd::Unit(P + 1, P);
  const Eigen::VectorXd t = dense.linearization->Tangent(orient);
  const Eigen::VectorXd step = dense.linearization->SolveAugmented(t, -dense.rho, 0.0);
  for (bool precondition : {true, false}) {
    EmLambdaCurveOptions o;
    o.precondition = precondition;
    o.linear.gmres.rel_tol = 1e-10;
    o.linear.gmres.max_iter = precondition ? 60 : 1000;
    CurveEvaluation e = ValueOrThrow(EmLambdaCurveMap(layout, supervised, em0, unlabeled, o)(y));
    const Eigen::VectorXd tk = e.linearization->Tangent(orient);
    const Eigen::VectorXd sk = e.linearization->SolveAugmented(t, -e.rho, 0.0);
    if (precondition) {
      ASSERT_TRUE(tk.allFinite());
      ASSERT_TRUE(sk.allFinite());
      EXPECT_LE((tk - t).norm(), 1e-8);
      EXPECT_LE((sk - step).norm(), 1e-8 * step.norm());
    } else {
      EXPECT_FALSE(tk.allFinite() && sk.allFinite());
    }
  }
}

}  // namespace word_block_preconditioner_test
}  // namespace seqflow

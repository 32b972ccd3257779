// SolveSimplexQpBatch: each item solved by the QP its prepare chose (checked against the solution
// of that QP alone), items that need none left to prepare, the same bits for any thread count,
// the first failure returned and cancellation reported.
#include "nodes/optim/simplex_qp_batch.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <limits>
#include <string>

#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace simplex_qp_batch_test {

constexpr Eigen::Index kDim = 3;
constexpr size_t kItems = 50;

struct Qps {
  SimplexQp plain = SimplexQp::Create((Eigen::MatrixXd(3, 3) << 2, 0.5, 0, 0.5, 1, 0.2, 0, 0.2, 3).finished()).value();
  SimplexQp interpolated = SimplexQp::Create(Eigen::MatrixXd::Identity(3, 3)).value();
};

// Item i: no QP when i % 5 == 0, the interpolated one when i is odd, else the plain one.
QpChoice Choice(size_t i) { return i % 5 == 0 ? QpChoice::kNone : i % 2 ? QpChoice::kInterpolated : QpChoice::kPlain; }
Eigen::VectorXd Beta(size_t i) { return Eigen::Vector3d(std::sin(i), std::cos(3.0 * i), 0.1 * static_cast<double>(i % 7)); }

Eigen::MatrixXd Solve(const Qps& qps, int threads, SimplexQpBatchStats* stats) {
  Eigen::MatrixXd out = Eigen::MatrixXd::Constant(kDim, kItems, -1);
  auto prepare = [&](size_t i, Eigen::VectorXd& beta, Eigen::VectorXd& start) {
    beta = Beta(i);
    start = Eigen::VectorXd::Constant(kDim, 1.0 / kDim);
    if (Choice(i) == QpChoice::kNone) out.col(static_cast<Eigen::Index>(i)).setZero();
    return Choice(i);
  };
  auto store = [&](size_t i, const Eigen::VectorXd& gamma) { out.col(static_cast<Eigen::Index>(i)) = gamma; };
  *stats = SolveSimplexQpBatch(kItems, 7, threads, CancelToken(), qps.plain, qps.interpolated, kDim, prepare, store,
                               "test").value();
  return out;
}

TEST(SimplexQpBatch, EachItemIsSolvedByTheQpItsPrepareChose) {
  Qps qps;
  SimplexQpBatchStats stats;
  const Eigen::MatrixXd out = Solve(qps, 1, &stats);
  int64_t solved = 0;
  for (size_t i = 0; i < kItems; ++i) {
    const auto col = static_cast<Eigen::Index>(i);
    if (Choice(i) == QpChoice::kNone) {
      EXPECT_TRUE(out.col(col).isZero()) << i;
      continue;
    }
    ++solved;
    Eigen::VectorXd alone = Eigen::VectorXd::Constant(kDim, 1.0 / kDim);
    ASSERT_TRUE((Choice(i) == QpChoice::kInterpolated ? qps.interpolated : qps.plain).Solve(Beta(i), alone).ok());
    EXPECT_EQ(out.col(col), alone) << i;
  }
  EXPECT_EQ(stats.qps, solved);
  EXPECT_EQ(stats.not_converged, 0);
  EXPECT_GT(stats.iterations, 0);
}

TEST(SimplexQpBatch, ResultsAreTheSameBitsForAnyThreadCount) {
  Qps qps;
  SimplexQpBatchStats one, four;
  const Eigen::MatrixXd a = Solve(qps, 1, &one), b = Solve(qps, 4, &four);
  EXPECT_EQ(a, b);
  EXPECT_EQ(one.qps, four.qps);
  EXPECT_EQ(one.iterations, four.iterations);
}

TEST(SimplexQpBatch, AFailingQpFailsTheBatchWithItsStatus) {
  Qps qps;
  auto prepare = [](size_t i, Eigen::VectorXd& beta, Eigen::VectorXd& start) {
    beta = Beta(i);
    if (i == 23) beta[1] = std::numeric_limits<double>::quiet_NaN();
    start = Eigen::VectorXd::Constant(kDim, 1.0 / kDim);
    return QpChoice::kPlain;
  };
  auto store = [](size_t, const Eigen::VectorXd&) {};
  const auto r = SolveSimplexQpBatch(kItems, 7, 2, CancelToken(), qps.plain, qps.interpolated, kDim, prepare, store, "test");
  EXPECT_EQ(r.status().code(), StatusCode::kNumerical);
}

TEST(SimplexQpBatch, ACancelledBatchSaysWhatWasCancelled) {
  Qps qps;
  std::atomic<bool> stop{true};
  auto prepare = [](size_t i, Eigen::VectorXd& beta, Eigen::VectorXd& start) {
    beta = Beta(i);
    start = Eigen::VectorXd::Constant(kDim, 1.0 / kDim);
    return QpChoice::kPlain;
  };
  auto store = [](size_t, const Eigen::VectorXd&) {};
  const auto r =
      SolveSimplexQpBatch(kItems, 7, 2, CancelToken(&stop), qps.plain, qps.interpolated, kDim, prepare, store, "the QPs");
  EXPECT_EQ(r.status().code(), StatusCode::kCancelled);
  EXPECT_NE(r.status().message().find("the QPs cancelled"), std::string::npos);
}

}  // namespace simplex_qp_batch_test
}  // namespace seqflow

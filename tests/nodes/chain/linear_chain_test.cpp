// Chain inference against enumeration of all K^T labellings (STYLE §6).
#include "nodes/chain/linear_chain.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "tests/testutil/chain_brute_force.h"

namespace seqflow {
namespace linear_chain_test {

using testutil::ChainBruteForce;
using testutil::EnumerateChain;

RowMatrixXd Random(int rows, int cols, double scale, std::mt19937& rng) {
  return testutil::RandomRows(rows, cols, scale, rng);
}

TEST(LinearChain, MatchesEnumeration) {
  std::mt19937 rng(7);
  for (int T = 1; T <= 4; ++T) {
    for (int K : {1, 2, 3}) {
      for (double scale : {0.5, 3.0, 40.0}) {  // 40: exp overflows without the per-token shift
        const RowMatrixXd s = Random(T, K, scale, rng), a = Random(K, K, scale, rng);
        const ChainBruteForce want = EnumerateChain(s, a);
        RowMatrixXd marginals, bigrams = RowMatrixXd::Zero(K, K);
        const double log_z = ChainForwardBackward(s, a, &marginals, &bigrams);
        SCOPED_TRACE(testing::Message() << "T=" << T << " K=" << K << " scale=" << scale);
        if (scale < 10) {
          EXPECT_EQ(ChainViterbi(s, a), want.best);
          EXPECT_NEAR(log_z, want.log_z, 1e-10);
          EXPECT_LT((marginals - want.marginals).cwiseAbs().maxCoeff(), 1e-10);
          EXPECT_LT((bigrams - want.bigrams).cwiseAbs().maxCoeff(), 1e-10);
        } else {  // enumeration overflows; check the invariants instead
          EXPECT_TRUE(std::isfinite(log_z));
          EXPECT_NEAR(marginals.rowwise().sum().minCoeff(), 1.0, 1e-12);
          EXPECT_NEAR(bigrams.sum(), T - 1.0, 1e-9);
          EXPECT_GE(log_z, ChainScore(s, a, ChainViterbi(s, a)) - 1e-9);
        }
      }
    }
  }
}

TEST(LinearChain, LogZOnlyEqualsFullPass) {
  std::mt19937 rng(3);
  const RowMatrixXd s = Random(6, 4, 1.0, rng), a = Random(4, 4, 1.0, rng);
  RowMatrixXd marginals;
  EXPECT_DOUBLE_EQ(ChainForwardBackward(s, a, nullptr, nullptr), ChainForwardBackward(s, a, &marginals, nullptr));
}

TEST(LinearChain, NonFiniteScoresGiveNonFiniteLogZ) {
  RowMatrixXd s = RowMatrixXd::Zero(2, 2), a = RowMatrixXd::Zero(2, 2);
  s(1, 1) = std::nan("");
  EXPECT_FALSE(std::isfinite(ChainForwardBackward(s, a, nullptr, nullptr)));
}

}  // namespace linear_chain_test
}  // namespace seqflow

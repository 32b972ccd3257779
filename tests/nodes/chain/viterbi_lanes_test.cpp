// The lane Viterbi kernels: double precision on score tables against enumeration of all
// labellings (its use on HMM emission tables is tested the same way in
// tests/nodes/hmm/viterbi_test.cpp), batch independence, and the float kernel's certificate.
#include "nodes/chain/viterbi_lanes.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "nodes/chain/linear_chain.h"
#include "nodes/chain/viterbi_f32_lanes.h"
#include "tests/testutil/chain_brute_force.h"

namespace seqflow {
namespace viterbi_lanes_test {

using testutil::EnumerateChain;
using testutil::RandomRows;

TEST(ChainViterbi, MatchesEnumeration) {
  std::mt19937 rng(11);
  for (int T = 1; T <= 4; ++T) {
    for (int K : {1, 2, 3}) {
      const RowMatrixXd s = RandomRows(T, K, 2.0, rng), a = RandomRows(K, K, 2.0, rng);
      SCOPED_TRACE(testing::Message() << "T=" << T << " K=" << K);
      EXPECT_EQ(ChainViterbi(s, a), EnumerateChain(s, a).best);
    }
  }
}

TEST(ChainViterbi, BreaksTiesTowardLowerLabels) {
  const RowMatrixXd s = RowMatrixXd::Zero(3, 3), a = RowMatrixXd::Zero(3, 3);
  EXPECT_EQ(ChainViterbi(s, a), (std::vector<int32_t>{0, 0, 0}));
}

// Chains of mixed lengths in one batch decode as they do alone, with their path's score.
TEST(ChainViterbi, LanesOfABatchDecodeAsAlone) {
  std::mt19937 rng(3);
  const int K = 5;
  const RowMatrixXd a = RandomRows(K, K, 1.0, rng);
  const RowMatrixXd scores = RandomRows(60, K, 1.0, rng);
  std::vector<int32_t> row_ids;
  const std::span<const int32_t> ids = ChainRowIds(60, &row_ids);
  const std::array<int, kLanes> first = {0, 9, 10, 25, 31, 40, 47, 52}, len = {9, 1, 15, 6, 9, 7, 5, 8};
  LaneBatch<kLanes> batch;
  std::vector<std::vector<int32_t>> paths(kLanes);
  std::array<int32_t*, kLanes> out{};
  for (int l = 0; l < kLanes; ++l) {
    batch.obs[l] = ids.subspan(first[l], len[l]);
    batch.length = std::max(batch.length, len[l]);
    paths[l].resize(len[l]);
    out[l] = paths[l].data();
  }
  ChainViterbiWork work;
  std::array<double, kLanes> best;
  ChainViterbiRun(ChainViterbiModel::FromLogPotentials(a), {scores.data(), false}, batch, &work, out, &best);
  for (int l = 0; l < kLanes; ++l) {
    const RowMatrixXd alone = scores.middleRows(first[l], len[l]);
    EXPECT_EQ(paths[l], ChainViterbi(alone, a)) << "lane " << l;
    EXPECT_NEAR(best[l], ChainScore(alone, a, paths[l]), 1e-12) << "lane " << l;
  }
}

// One position, two labels whose log probabilities differ by ~4e-10: equal in float, so the
// float kernel must not certify its path; a clear winner is certified.
TEST(ViterbiF32, CertifiesOnlyClearWinners) {
  const Eigen::Matrix2d log_a = Eigen::Matrix2d::Constant(std::log(0.5));
  const Eigen::MatrixXd log_b = Eigen::MatrixXd::Constant(2, 3, std::log(1.0 / 3));
  const std::vector<int32_t> sentence = {0};
  LaneBatch<kF32Lanes> batch;
  batch.obs[0] = sentence;
  batch.length = 1;
  std::vector<int32_t> path(1);
  std::array<int32_t*, kF32Lanes> paths{};
  paths[0] = path.data();
  std::array<bool, kF32Lanes> certified;
  ViterbiF32Work work;

  const ChainViterbiModel tie =
      ChainViterbiModel::FromLogPotentials(log_a, Eigen::Vector2d(std::log(0.5 - 1e-10), std::log(0.5 + 1e-10)));
  ViterbiF32Run(ViterbiF32Model(tie, log_b.data(), log_b.cols()), batch, &work, paths, &certified);
  EXPECT_FALSE(certified[0]);
  EXPECT_TRUE(certified[1]);  // empty lane

  const ChainViterbiModel clear =
      ChainViterbiModel::FromLogPotentials(log_a, Eigen::Vector2d(std::log(0.4), std::log(0.6)));
  ViterbiF32Run(ViterbiF32Model(clear, log_b.data(), log_b.cols()), batch, &work, paths, &certified);
  EXPECT_TRUE(certified[0]);
  EXPECT_EQ(path[0], 1);
}

}  // namespace viterbi_lanes_test
}  // namespace seqflow

// The lane-batched forward-backward on score tables against the one-chain ChainForwardBackward
// (itself tested against enumeration in linear_chain_test.cpp), on batches of chains of mixed
// lengths. Its use on probability tables (HMMs) is tested against enumeration in
// tests/nodes/hmm/fb_test.cpp.
#include "nodes/chain/forward_backward_lanes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "nodes/chain/linear_chain.h"
#include "tests/testutil/chain_brute_force.h"

namespace seqflow {
namespace forward_backward_lanes_test {

RowMatrixXd Random(int rows, int cols, double scale, std::mt19937& rng) {
  return testutil::RandomRows(rows, cols, scale, rng);
}

double RelativeError(double got, double want) { return std::abs(got - want) / std::max(1.0, std::abs(want)); }

// Fills `lanes` lanes of a batch with random chains of lengths in [1, 40] stacked in one score
// table, runs the lanes kernel and compares every lane with ChainForwardBackward.
void CheckBatch(int K, int lanes, double scale, std::mt19937& rng) {
  std::uniform_int_distribution<int> length(1, 40);
  const RowMatrixXd transition = Random(K, K, scale, rng);
  std::array<int, kLanes> first{}, len{};
  int rows = 3;  // an offset before the first chain: lanes need not start at row 0
  for (int l = 0; l < lanes; ++l) {
    first[l] = rows;
    len[l] = length(rng);
    rows += len[l];
  }
  const RowMatrixXd scores = Random(rows, K, scale, rng);
  std::vector<int32_t> row_ids;
  const std::span<const int32_t> ids = ChainRowIds(rows, &row_ids);
  LaneBatch<kLanes> batch;
  for (int l = 0; l < lanes; ++l) {
    batch.obs[l] = ids.subspan(first[l], len[l]);
    batch.length = std::max(batch.length, len[l]);
  }
  std::vector<RowMatrixXd> marginals(kLanes);
  std::array<double*, kLanes> marginal_rows{};
  for (int l = 0; l < lanes; ++l) {
    marginals[l].setZero(len[l], K);
    marginal_rows[l] = marginals[l].data();
  }
  LaneVector<Lanes<kLanes>> xi(K * K, Lanes<kLanes>{});
  ChainLanesWork work;
  const ChainLanesTransition lanes_transition = ChainLanesTransition::FromLogPotentials(transition);
  const ChainPotentials potentials{scores.data(), ChainPotentials::Kind::kLogScores, nullptr};
  const std::array<double, kLanes> log_z =
      ChainLanesForwardBackward<double>(potentials, lanes_transition, batch, work, marginal_rows, xi.data());
  RowMatrixXd bigrams = RowMatrixXd::Zero(K, K), want_bigrams = RowMatrixXd::Zero(K, K);
  ChainLanesAddBigrams(lanes_transition, xi.data(), bigrams.data());
  for (int l = 0; l < kLanes; ++l) {
    SCOPED_TRACE(testing::Message() << "K=" << K << " scale=" << scale << " lane=" << l);
    if (l >= lanes) {
      EXPECT_EQ(log_z[l], 0.0);
      continue;
    }
    RowMatrixXd want_marginals;
    const double want_log_z =
        ChainForwardBackward(scores.middleRows(first[l], len[l]), transition, &want_marginals, &want_bigrams);
    EXPECT_LT(RelativeError(log_z[l], want_log_z), 1e-10);
    EXPECT_LT((marginals[l] - want_marginals).cwiseAbs().maxCoeff(), 1e-10);
  }
  EXPECT_LT((bigrams - want_bigrams).cwiseAbs().maxCoeff() / std::max(1.0, want_bigrams.cwiseAbs().maxCoeff()), 1e-10);
}

TEST(ChainLanes, MatchesOneChainForwardBackward) {
  std::mt19937 rng(17);
  for (int K : {1, 3, 9, 22}) {
    for (double scale : {0.5, 3.0, 40.0}) {  // 40: exp overflows without the per-token shift
      for (int lanes : {1, 5, kLanes}) CheckBatch(K, lanes, scale, rng);
    }
  }
}

TEST(ChainLanes, NonFiniteScoresSpoilOnlyTheirLane) {
  std::mt19937 rng(5);
  const int K = 3;
  const RowMatrixXd transition = Random(K, K, 1.0, rng);
  RowMatrixXd scores = Random(8, K, 1.0, rng);
  scores(1, 2) = std::nan("");
  std::vector<int32_t> row_ids;
  const std::span<const int32_t> ids = ChainRowIds(8, &row_ids);
  LaneBatch<kLanes> batch;
  batch.obs[0] = ids.subspan(0, 4);
  batch.obs[1] = ids.subspan(4, 4);
  batch.length = 4;
  ChainLanesWork work;
  const std::array<double, kLanes> log_z =
      ChainLanesForwardBackward<double>({scores.data(), ChainPotentials::Kind::kLogScores, nullptr},
                                        ChainLanesTransition::FromLogPotentials(transition), batch, work, {}, nullptr);
  EXPECT_TRUE(std::isnan(log_z[0]));
  EXPECT_NEAR(log_z[1], ChainForwardBackward(scores.bottomRows(4), transition, nullptr, nullptr), 1e-12);
}

}  // namespace forward_backward_lanes_test
}  // namespace seqflow

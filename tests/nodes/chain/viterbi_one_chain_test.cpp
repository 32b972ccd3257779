// The one-chain Viterbi (labels in lanes) in every instruction-set variant this CPU runs: against
// enumeration of all labellings, and against lane 0 of the lane kernel (path and score bits) on
// potentials with many ties and impossible labels, for K across the kernel's block and group
// boundaries.
#include "nodes/chain/viterbi_one_chain.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>

#include "engine/base/isa.h"
#include "nodes/chain/viterbi_lanes.h"
#include "tests/testutil/chain_brute_force.h"

namespace seqflow {
namespace viterbi_one_chain_test {

using testutil::EnumerateChain;
using testutil::RandomRows;

std::vector<int32_t> Decode(const RowMatrixXd& s, const RowMatrixXd& a, double* score = nullptr) {
  OneChainViterbiWork work;
  std::vector<int32_t> path(static_cast<size_t>(s.rows()), -1);
  const double best = OneChainViterbi(OneChainViterbiModel::FromLogPotentials(a), s.data(), static_cast<int>(s.rows()),
                                      &work, path.data());
  if (score) *score = best;
  return path;
}

std::vector<int32_t> LaneZero(const RowMatrixXd& s, const RowMatrixXd& a, double* score) {
  std::vector<int32_t> row_ids, path(static_cast<size_t>(s.rows()), -1);
  LaneBatch<kLanes> batch;
  batch.obs[0] = ChainRowIds(static_cast<size_t>(s.rows()), &row_ids);
  batch.length = static_cast<int>(s.rows());
  ChainViterbiWork work;
  std::array<double, kLanes> best{};
  ChainViterbiRun(ChainViterbiModel::FromLogPotentials(a), {s.data(), false}, batch, &work, {path.data()}, &best);
  *score = best[0];
  return path;
}

class OneChainViterbiTest : public testing::TestWithParam<Isa> {
 protected:
  void SetUp() override { SetActiveIsa(GetParam()); }
  void TearDown() override { SetActiveIsa(SupportedIsas().back()); }
};

TEST_P(OneChainViterbiTest, MatchesEnumeration) {
  std::mt19937 rng(5);
  for (int K : {1, 2, 3, 5, 8, 9, 12, 17, 33}) {
    for (int T = 1; T <= (K <= 5 ? 4 : K <= 12 ? 3 : 2); ++T) {
      const RowMatrixXd s = RandomRows(T, K, 2.0, rng), a = RandomRows(K, K, 2.0, rng);
      SCOPED_TRACE(testing::Message() << "T=" << T << " K=" << K);
      EXPECT_EQ(Decode(s, a), EnumerateChain(s, a).best);
    }
  }
}

TEST_P(OneChainViterbiTest, BreaksTiesTowardLowerLabels) {
  const RowMatrixXd s = RowMatrixXd::Zero(4, 11), a = RowMatrixXd::Zero(11, 11);
  EXPECT_EQ(Decode(s, a), (std::vector<int32_t>{0, 0, 0, 0}));
}

// Half-integer potentials tie often; -inf marks impossible labels and transitions.
TEST_P(OneChainViterbiTest, MatchesLaneZeroOfTheLaneKernelBitForBit) {
  std::mt19937 rng(17);
  std::uniform_int_distribution<int> half(-4, 0), length(1, 30), impossible(0, 19);
  auto draw = [&](int rows, int cols) {
    RowMatrixXd m(rows, cols);
    for (Eigen::Index i = 0; i < m.size(); ++i)
      m.data()[i] = impossible(rng) == 0 ? -std::numeric_limits<double>::infinity() : 0.5 * half(rng);
    return m;
  };
  for (int K = 1; K <= 41; ++K) {
    for (int rep = 0; rep < 3; ++rep) {
      const RowMatrixXd s = draw(length(rng), K), a = draw(K, K);
      double got = 0, want = 0;
      SCOPED_TRACE(testing::Message() << "K=" << K << " T=" << s.rows());
      EXPECT_EQ(Decode(s, a, &got), LaneZero(s, a, &want));
      EXPECT_EQ(std::bit_cast<uint64_t>(got), std::bit_cast<uint64_t>(want));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EveryVariant, OneChainViterbiTest, testing::ValuesIn(SupportedIsas()),
                         [](const testing::TestParamInfo<Isa>& variant) {
                           return std::string(IsaName(variant.param));
                         });

}  // namespace viterbi_one_chain_test
}  // namespace seqflow

// Second-order forward-backward and Viterbi against enumeration of all K^T tag sequences, with
// sentences of different lengths sharing one lane batch.
#include "nodes/chain/second_order_lanes.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <random>

#include "engine/base/isa.h"
#include "nodes/chain/linear_chain.h"
#include "tests/testutil/chain_brute_force.h"
#include "tests/testutil/second_order_brute_force.h"

namespace seqflow {
namespace second_order_lanes_test {

using testutil::EnumerateSecondOrder;
using testutil::RandomRows;
using testutil::SecondOrderBruteForce;

Eigen::VectorXd RandomTrigrams(int K, double scale, std::mt19937& rng) {
  std::normal_distribution<double> normal(0, scale);
  Eigen::VectorXd g(TrigramSize(K));
  for (Eigen::Index i = 0; i < g.size(); ++i) g[i] = normal(rng);
  return g;
}

// Runs the sentences (one [T x K] score matrix each, at most kLanes) as one lane batch.
struct BatchRun {
  std::array<double, kLanes> log_z{};
  std::vector<std::vector<double>> marginals, pairs;
  Eigen::VectorXd trigrams;
};

BatchRun RunBatch(const std::vector<RowMatrixXd>& sentences, const Eigen::VectorXd& g) {
  const int K = static_cast<int>(sentences[0].cols());
  std::vector<double> table;
  std::vector<size_t> first;
  for (const RowMatrixXd& s : sentences) {
    first.push_back(table.size() / K);
    table.insert(table.end(), s.data(), s.data() + s.size());
  }
  std::vector<int32_t> ids;
  const std::span<const int32_t> rows = ChainRowIds(table.size() / K, &ids);
  BatchRun run;
  run.marginals.resize(sentences.size());
  run.pairs.resize(sentences.size());
  LaneBatch<kLanes> batch;
  std::array<double*, kLanes> marginal_rows{}, pair_rows{};
  for (size_t l = 0; l < sentences.size(); ++l) {
    const size_t T = sentences[l].rows();
    batch.obs[l] = rows.subspan(first[l], T);
    batch.length = std::max(batch.length, static_cast<int>(T));
    run.marginals[l].assign(T * K, -1.0);
    run.pairs[l].assign(T * K * K, -1.0);
    marginal_rows[l] = run.marginals[l].data();
    pair_rows[l] = run.pairs[l].data();
  }
  const SecondOrderTransition transition = SecondOrderTransition::FromLogPotentials(g, K);
  SecondOrderWork work;
  LaneVector<Lanes<kLanes>> xi(TrigramSize(K), Lanes<kLanes>{});
  run.log_z = SecondOrderForwardBackward<double>(table.data(), transition, batch, work, marginal_rows, pair_rows,
                                                 xi.data());
  run.trigrams = Eigen::VectorXd::Zero(TrigramSize(K));
  SecondOrderAddTrigrams(transition, xi.data(), run.trigrams.data());
  return run;
}

double MaxDiff(const std::vector<double>& a, const double* b) {
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  return d;
}

TEST(SecondOrderLanes, MatchesEnumerationInOneBatch) {
  std::mt19937 rng(11);
  for (int K : {1, 2, 3}) {
    for (double scale : {0.5, 2.0}) {
      const Eigen::VectorXd g = RandomTrigrams(K, scale, rng);
      std::vector<RowMatrixXd> sentences;
      for (int T : {5, 1, 3, 2, 4, 1}) sentences.push_back(RandomRows(T, K, scale, rng));
      const BatchRun run = RunBatch(sentences, g);
      Eigen::VectorXd trigrams = Eigen::VectorXd::Zero(TrigramSize(K));
      for (size_t l = 0; l < sentences.size(); ++l) {
        SCOPED_TRACE(testing::Message() << "K=" << K << " scale=" << scale << " lane=" << l);
        const SecondOrderBruteForce want = EnumerateSecondOrder(sentences[l], g);
        trigrams += want.trigrams;
        EXPECT_NEAR(run.log_z[l], want.log_z, 1e-10);
        EXPECT_LT(MaxDiff(run.marginals[l], want.marginals.data()), 1e-10);
        EXPECT_LT(MaxDiff(run.pairs[l], want.pairs.data()), 1e-10);
        const int T = static_cast<int>(sentences[l].rows());
        EXPECT_EQ(SecondOrderViterbi(sentences[l].data(), T, K, g.data()), want.best);
      }
      for (size_t l = sentences.size(); l < kLanes; ++l) EXPECT_EQ(run.log_z[l], 0.0);
      EXPECT_LT((run.trigrams - trigrams).cwiseAbs().maxCoeff(), 1e-10);
    }
  }
}

// Large scores: enumeration would overflow exp, the scaled passes must not.
TEST(SecondOrderLanes, LargeScoresKeepInvariants) {
  std::mt19937 rng(5);
  const int K = 3;
  const Eigen::VectorXd g = RandomTrigrams(K, 40.0, rng);
  const std::vector<RowMatrixXd> sentences = {RandomRows(30, K, 40.0, rng), RandomRows(7, K, 40.0, rng)};
  const BatchRun run = RunBatch(sentences, g);
  for (size_t l = 0; l < sentences.size(); ++l) {
    const int T = static_cast<int>(sentences[l].rows());
    ASSERT_TRUE(std::isfinite(run.log_z[l]));
    const std::vector<int32_t> best = SecondOrderViterbi(sentences[l].data(), T, K, g.data());
    EXPECT_GE(run.log_z[l], SecondOrderScore(sentences[l], g, best) - 1e-9);
    for (int t = 0; t < T; ++t) {
      double sum = 0;
      for (int k = 0; k < K; ++k) sum += run.marginals[l][t * K + k];
      EXPECT_NEAR(sum, 1.0, 1e-12);
    }
  }
  EXPECT_NEAR(run.trigrams.sum(), 30 - 1 + 7 - 1, 1e-9);
}

// G(a, b, c) = A(b, c) for every a is the first-order chain.
TEST(SecondOrderLanes, BigramTrigramsGiveTheFirstOrderChain) {
  std::mt19937 rng(9);
  const int K = 4, T = 9;
  const RowMatrixXd s = RandomRows(T, K, 1.5, rng), a = RandomRows(K, K, 1.5, rng);
  Eigen::VectorXd g(TrigramSize(K));
  for (int p = 0; p <= K; ++p) {
    for (int b = 0; b < K; ++b) {
      for (int c = 0; c < K; ++c) g[TrigramIndex(K, p, b, c)] = a(b, c);
    }
  }
  RowMatrixXd marginals;
  const double log_z = ChainForwardBackward(s, a, &marginals, nullptr);
  const BatchRun run = RunBatch({s}, g);
  EXPECT_NEAR(run.log_z[0], log_z, 1e-11);
  EXPECT_LT(MaxDiff(run.marginals[0], marginals.data()), 1e-12);
  EXPECT_EQ(SecondOrderViterbi(s.data(), T, K, g.data()), ChainViterbi(s, a));
}

TEST(SecondOrderLanes, NonFiniteScoresGiveNaNLogZ) {
  const int K = 2;
  RowMatrixXd s = RowMatrixXd::Zero(3, K);
  s(1, 1) = std::nan("");
  const BatchRun run = RunBatch({s, RowMatrixXd::Zero(2, K)}, Eigen::VectorXd::Zero(TrigramSize(K)));
  EXPECT_TRUE(std::isnan(run.log_z[0]));
  EXPECT_NEAR(run.log_z[1], 2 * std::log(2.0), 1e-12);
}

// Every instruction-set clone this CPU runs gives the baseline's bits (engine/base/isa.h).
TEST(SecondOrderLanes, EveryVariantHasTheSameBits) {
  std::mt19937 rng(21);
  const int K = 11;
  const Eigen::VectorXd g = RandomTrigrams(K, 2.0, rng);
  std::vector<RowMatrixXd> sentences;
  for (int T : {17, 3, 40, 1, 9, 12, 2, 25}) sentences.push_back(RandomRows(T, K, 2.0, rng));
  const auto bits = [&] {
    const BatchRun run = RunBatch(sentences, g);
    std::vector<uint64_t> out;
    for (double z : run.log_z) out.push_back(std::bit_cast<uint64_t>(z));
    for (const auto& rows : {run.marginals, run.pairs}) {
      for (const std::vector<double>& r : rows) {
        for (double x : r) out.push_back(std::bit_cast<uint64_t>(x));
      }
    }
    for (double x : run.trigrams) out.push_back(std::bit_cast<uint64_t>(x));
    return out;
  };
  SetActiveIsa(Isa::kBaseline);
  const std::vector<uint64_t> want = bits();
  for (Isa isa : SupportedIsas()) {
    SetActiveIsa(isa);
    EXPECT_TRUE(bits() == want) << IsaName(isa);
  }
  SetActiveIsa(SupportedIsas().back());
}

}  // namespace second_order_lanes_test
}  // namespace seqflow

// The chain library's tangent pass against enumeration of all labellings (tiny chains, both kinds
// of potential table, with and without the bigram direction) and against central finite
// differences of the lane forward-backward (long chains of mixed lengths in one batch); lanes of
// probability zero add nothing.
#include "nodes/chain/tangent_lanes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "tests/testutil/chain_brute_force.h"

namespace seqflow {
namespace tangent_lanes_test {

using testutil::RandomRows;

// A batch of chains stacked in one table of log-potentials [rows x K] (row-major, one row per
// position), with a direction and the outputs addressed like it.
struct Case {
  int K = 0;
  std::vector<int> first, len;
  RowMatrixXd scores, transition;  // log ψ rows, log E
  Eigen::VectorXd log_initial;     // [K] log π (kProbabilities only)
  RowMatrixXd u, u_transition;     // U rows, U_E
  Eigen::VectorXd u_initial;       // u_π
  std::vector<int32_t> row_ids;
  LaneBatch<kLanes> batch;
};

Case MakeCase(int K, const std::vector<int>& lengths, double scale, std::mt19937& rng) {
  Case c;
  c.K = K;
  int rows = 2;  // lanes need not start at row 0
  for (int n : lengths) {
    c.first.push_back(rows);
    c.len.push_back(n);
    rows += n;
  }
  c.scores = RandomRows(rows, K, scale, rng);
  c.transition = RandomRows(K, K, scale, rng);
  c.log_initial = RandomRows(K, 1, scale, rng);
  c.u = RandomRows(rows, K, 1.0, rng);
  c.u_transition = RandomRows(K, K, 1.0, rng);
  c.u_initial = RandomRows(K, 1, 1.0, rng);
  const std::span<const int32_t> ids = ChainRowIds(rows, &c.row_ids);
  for (size_t l = 0; l < lengths.size(); ++l) {
    c.batch.obs[l] = ids.subspan(c.first[l], c.len[l]);
    c.batch.length = std::max(c.batch.length, c.len[l]);
  }
  return c;
}

struct Derivatives {
  RowMatrixXd position;  // [rows x K]
  Eigen::VectorXd initial;
  RowMatrixXd transition;
};

// The tangent pass on the case: probabilities (ψ = exp(scores), E = exp(transition), π) or log
// scores (no π).
Derivatives Tangent(const Case& c, bool probabilities, bool bigrams) {
  const RowMatrixXd psi = c.scores.unaryExpr([](double v) { return std::exp(v); });  // exp(-inf) = 0 exactly
  const Eigen::VectorXd pi = c.log_initial.array().exp();
  const ChainLanesTransition tr = probabilities
                                      ? ChainLanesTransition::FromProbabilities(c.transition.array().exp().matrix())
                                      : ChainLanesTransition::FromLogPotentials(c.transition);
  const ChainPotentials potentials = probabilities
                                         ? ChainPotentials{psi.data(), ChainPotentials::Kind::kProbabilities, pi.data()}
                                         : ChainPotentials{c.scores.data(), ChainPotentials::Kind::kLogScores, nullptr};
  ChainLanesWork work;
  ChainLanesTables tables;
  ChainLanesForwardBackward<double>(potentials, tr, c.batch, work, {}, nullptr, &tables);
  Derivatives d{RowMatrixXd::Zero(c.scores.rows(), c.K), Eigen::VectorXd::Zero(c.K), RowMatrixXd::Zero(c.K, c.K)};
  const ChainTangentDirection u{c.u.data(), probabilities ? c.u_initial.data() : nullptr,
                                bigrams ? c.u_transition.data() : nullptr};
  ChainTangentWork tangent_work;
  ChainLanesTangent(tr, c.batch, tables, u, tangent_work, {d.position.data(), d.initial.data(), d.transition.data()});
  return d;
}

// Cov[φ, u·φ] of lane l by enumeration: the marginals' and bigrams' derivatives.
// dP_0 goes to the initial output whether or not the chain has a π.
void AddBruteForce(const Case& c, int l, bool with_initial, bool bigrams, Derivatives* d) {
  const int T = c.len[l], K = c.K;
  const RowMatrixXd s = c.scores.middleRows(c.first[l], T);
  const RowMatrixXd u = c.u.middleRows(c.first[l], T);
  std::vector<int32_t> y(T, 0);
  double z = 0, mean_g = 0;
  RowMatrixXd p = RowMatrixXd::Zero(T, K), pg = p, xi = RowMatrixXd::Zero(K, K), xig = xi;
  Eigen::VectorXd p0g = Eigen::VectorXd::Zero(K);
  do {
    double score = ChainScore(s, c.transition, y), g = 0;
    if (with_initial) score += c.log_initial[y[0]], g += c.u_initial[y[0]];
    for (int t = 0; t < T; ++t) {
      g += u(t, y[t]);
      if (t > 0 && bigrams) g += c.u_transition(y[t - 1], y[t]);
    }
    const double w = std::exp(score);
    z += w;
    mean_g += w * g;
    for (int t = 0; t < T; ++t) {
      p(t, y[t]) += w, pg(t, y[t]) += w * g;
      if (t > 0) xi(y[t - 1], y[t]) += w, xig(y[t - 1], y[t]) += w * g;
    }
  } while (testutil::NextLabelling(&y, K));
  mean_g /= z;
  const RowMatrixXd dp = (pg - mean_g * p) / z;
  d->position.middleRows(c.first[l], T) += dp;
  d->initial += dp.row(0).transpose();
  if (bigrams) d->transition += (xig - mean_g * xi) / z;
}

double MaxAbs(const RowMatrixXd& m) { return m.size() == 0 ? 0.0 : m.cwiseAbs().maxCoeff(); }

TEST(ChainTangent, MatchesEnumerationForBothTableKinds) {
  std::mt19937 rng(7);
  for (int K = 1; K <= 3; ++K) {
    for (bool probabilities : {false, true}) {
      for (bool bigrams : {false, true}) {
        SCOPED_TRACE(testing::Message() << "K=" << K << " probabilities=" << probabilities << " bigrams=" << bigrams);
        const Case c = MakeCase(K, {4, 1, 3, 2, 4}, 1.0, rng);
        const Derivatives got = Tangent(c, probabilities, bigrams);
        Derivatives want{RowMatrixXd::Zero(c.scores.rows(), K), Eigen::VectorXd::Zero(K), RowMatrixXd::Zero(K, K)};
        for (size_t l = 0; l < c.len.size(); ++l) AddBruteForce(c, static_cast<int>(l), probabilities, bigrams, &want);
        EXPECT_LE(MaxAbs(got.position - want.position), 1e-12);
        EXPECT_LE(MaxAbs(got.initial - want.initial), 1e-12);
        EXPECT_LE(MaxAbs(got.transition - want.transition), 1e-12);
        if (K > 1) {
          EXPECT_GT(MaxAbs(want.position), 1e-3);
        }
      }
    }
  }
}

// Marginals [rows x K] and expected bigrams of the log-score case with scores + εU and
// transition + εU_E.
void Marginals(const Case& c, double eps, RowMatrixXd* marginals, RowMatrixXd* bigrams) {
  const RowMatrixXd scores = c.scores + eps * c.u;
  const ChainLanesTransition tr = ChainLanesTransition::FromLogPotentials(c.transition + eps * c.u_transition);
  marginals->setZero(scores.rows(), c.K);
  std::array<double*, kLanes> rows{};
  for (size_t l = 0; l < c.len.size(); ++l) rows[l] = marginals->row(c.first[l]).data();
  LaneVector<Lanes<kLanes>> xi(static_cast<size_t>(c.K) * c.K, Lanes<kLanes>{});
  ChainLanesWork work;
  ChainLanesForwardBackward<double>({scores.data(), ChainPotentials::Kind::kLogScores, nullptr}, tr, c.batch, work,
                                    rows, xi.data());
  bigrams->setZero(c.K, c.K);
  ChainLanesAddBigrams(tr, xi.data(), bigrams->data());
}

TEST(ChainTangent, MatchesCentralDifferencesOnLongChains) {
  std::mt19937 rng(11);
  for (int K : {2, 5, 13}) {
    SCOPED_TRACE(testing::Message() << "K=" << K);
    const Case c = MakeCase(K, {40, 1, 17, 33, 2, 25, 9, 40}, 0.7, rng);
    const Derivatives got = Tangent(c, false, true);
    constexpr double kEps = 1e-5;
    RowMatrixXd plus, minus, bigrams_plus, bigrams_minus;
    Marginals(c, kEps, &plus, &bigrams_plus);
    Marginals(c, -kEps, &minus, &bigrams_minus);
    EXPECT_LE(MaxAbs(got.position - (plus - minus) / (2 * kEps)), 1e-7);
    EXPECT_LE(MaxAbs(got.transition - (bigrams_plus - bigrams_minus) / (2 * kEps)), 1e-6);
    EXPECT_GT(MaxAbs(got.transition), 1e-2);
  }
}

// A lane of probability zero (a position no label can take) adds nothing; the others are as if
// it were not in the batch.
TEST(ChainTangent, LaneOfProbabilityZeroAddsNothing) {
  std::mt19937 rng(13);
  Case c = MakeCase(3, {5, 4, 6}, 1.0, rng);
  c.scores.row(c.first[1] + 2).setConstant(-std::numeric_limits<double>::infinity());  // ψ = 0
  const Derivatives got = Tangent(c, true, true);
  EXPECT_TRUE(got.position.allFinite() && got.transition.allFinite() && got.initial.allFinite());
  EXPECT_EQ(MaxAbs(got.position.middleRows(c.first[1], 4)), 0.0);
  Case without = c;
  without.batch.obs[1] = {};
  std::swap(without.batch.obs[1], without.batch.obs[2]);
  const Derivatives others = Tangent(without, true, true);
  EXPECT_LE(MaxAbs(got.position - others.position), 1e-15);
  EXPECT_LE(MaxAbs(got.transition - others.transition), 1e-15);
  EXPECT_LE(MaxAbs(got.initial - others.initial), 1e-15);
}

}  // namespace tangent_lanes_test
}  // namespace seqflow

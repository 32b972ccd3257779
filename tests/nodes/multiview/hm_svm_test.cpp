#include "nodes/multiview/hm_svm.h"

#include <gtest/gtest.h>

#include <random>

#include "nodes/chain/linear_chain.h"
#include "tests/testutil/chain_brute_force.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace hm_svm_test {

SentenceFeatures Tokens(const std::vector<std::vector<int32_t>>& attributes) {
  SentenceFeatures x;
  x.offsets = {0};
  for (const auto& token : attributes) {
    x.ids.insert(x.ids.end(), token.begin(), token.end());
    x.offsets.push_back(static_cast<int32_t>(x.ids.size()));
  }
  return x;
}

TEST(BestOtherThan, EqualsBruteForceArgmaxOverTheOtherLabellings) {
  std::mt19937 rng(13);
  for (int trial = 0; trial < 60; ++trial) {
    const int T = 1 + trial % 4, K = 2 + trial % 2;
    const RowMatrixXd s = testutil::RandomRows(T, K, 1.0, rng);
    const RowMatrixXd a = testutil::RandomRows(K, K, 1.0, rng);
    std::vector<int32_t> avoid =
        trial % 2 ? ChainViterbi(s, a) : std::vector<int32_t>(T, static_cast<int32_t>(rng() % K));
    std::vector<int32_t> y(T, 0), best;
    double best_score = -1e300;
    do {
      if (y == avoid) continue;
      const double f = ChainScore(s, a, y);
      if (f > best_score) best_score = f, best = y;
    } while (testutil::NextLabelling(&y, K));
    EXPECT_EQ(BestOtherThan(s, a, avoid), best) << "trial " << trial;
  }
}

// One token with attribute a0, gold label 1, two labels, one view: the only pseudo sequence is (0),
// ΔΦ = e(a0, 1) − e(a0, 0), Q = |ΔΦ|² = 2, b = 1, so α = min(1/2, C) for the 1-norm machine and
// α = 1 / (2 + 1/C) for the 2-norm one; W[a0] = (−α, α).
TEST(HmSvm, HandWorkedOneTokenExample) {
  const std::vector<SentenceFeatures> labeled = {Tokens({{0}})};
  const std::vector<std::vector<int32_t>> labels = {{1}};
  const std::vector<SentenceFeatures> none;
  const std::vector<int32_t> view = {0};
  const HmPerceptronData data{&labeled, &labels, &none, &view, 2};
  for (const auto& [norm, c, alpha] :
       std::vector<std::tuple<int, double, double>>{{1, 10.0, 0.5}, {1, 0.2, 0.2}, {2, 1.0, 1.0 / 3}}) {
    HmSvmOptions o;
    o.views = 1;
    o.norm = norm;
    o.c = c;
    o.epochs = 3;
    Result<HmSvmResult> r = TrainHmSvm(data, o, {}, {});
    ASSERT_OK(r);
    EXPECT_NEAR(r.value().weights.observation(0, 0), -alpha, 1e-9) << "norm " << norm << " C " << c;
    EXPECT_NEAR(r.value().weights.observation(0, 1), alpha, 1e-9) << "norm " << norm << " C " << c;
    EXPECT_EQ(r.value().epochs.back().support_sequences, 1);
  }
}

// Separable sequences (every token has an attribute of its own in each view) and a large C: every
// labeled example ends with margin >= 1 (to the block coordinate ascent's progress in 30 epochs
// and the 2-norm's slacks of order α / C) in each view against every other labelling.
TEST(HmSvm, SeparableDataReachesMarginOne) {
  const std::vector<SentenceFeatures> labeled = {Tokens({{0, 4}, {1, 5}, {2, 6}}), Tokens({{3, 7}, {0, 4}})};
  const std::vector<std::vector<int32_t>> labels = {{1, 0, 2}, {2, 1}};
  const std::vector<SentenceFeatures> none;
  const std::vector<int32_t> view = {0, 0, 0, 0, 1, 1, 1, 1};
  const HmPerceptronData data{&labeled, &labels, &none, &view, 3};
  for (int norm : {1, 2}) {
    HmSvmOptions o;
    o.norm = norm;
    o.c = 1000;
    o.epochs = 30;
    Result<HmSvmResult> r = TrainHmSvm(data, o, {}, {});
    ASSERT_OK(r);
    // The 2-norm machine keeps slacks ξ = α / C > 0, so its margins stay just below 1.
    if (norm == 1) {
      EXPECT_EQ(r.value().epochs.back().margin_violations, 0);
    }
    for (size_t n = 0; n < labeled.size(); ++n)
      for (int v = 0; v < 2; ++v) {
        RowMatrixXd s;
        ViewScores(r.value().weights.observation, labeled[n], &view, v, &s);
        const RowMatrixXd& a = r.value().weights.transition[v];
        const int T = labeled[n].size();
        std::vector<int32_t> y(T, 0);
        const double gold = ChainScore(s, a, labels[n]);
        do {
          if (y != labels[n]) {
            EXPECT_GE(gold - ChainScore(s, a, y), 1 - 1e-3) << "norm " << norm << " n " << n << " v " << v;
          }
        } while (testutil::NextLabelling(&y, 3));
      }
  }
}

// Table 3 with Eq. 19, 26 and 27 worked by hand on one-token sentences (no transitions). Labeled:
// attributes {0 (view 1), 1 (view 2)}, label 1: ΔΦ = e(a, 1) − e(a, 0), Q = 2, b = 1, so each
// view's α_l = min(1/2, C) = 0.2 (1-norm, C = 0.2) or 1 / (2 + 1/C) = 1/7 (2-norm) and
// W[0] = W[1] = (−α_l, α_l). Unlabeled: {0 (view 1), 3 (view 2)}. View 1 predicts label 1 with
// margin γ¹ = 2 α_l; view 2 has never seen attribute 3 and ties to label 0, γ² = 0. View 2 takes its
// peer's label as target (Eq. 19): ΔΦ = e(3, 1) − e(3, 0), b = 1, and with C_u = 1 the weight
// min{γ¹, 1} C_u C: 0.4 · 0.2 = 0.08 as a cap that binds (1-norm, Eq. 26), α = 0.08; or 2/7 · 0.2 =
// 2/35 as the ridge 35/2 (2-norm, Eq. 27), α = 1 / (2 + 17.5). The views then agree. View 1's
// weight min{γ², 1} C_u C is 0: it keeps W[0].
// Every epoch drops and re-solves the unlabeled α from the same weights, so this holds after any
// number of epochs.
TEST(HmSvm, UnlabeledExampleFollowsItsPeerWithinThePeersMarginTimesCuC) {
  const std::vector<SentenceFeatures> labeled = {Tokens({{0, 1}})};
  const std::vector<std::vector<int32_t>> labels = {{1}};
  const std::vector<SentenceFeatures> unlabeled = {Tokens({{0, 3}})};
  const std::vector<int32_t> view = {0, 1, 0, 1};
  for (const auto& [norm, labeled_alpha, alpha] :
       std::vector<std::tuple<int, double, double>>{{1, 0.2, 0.08}, {2, 1 / 7.0, 1 / 19.5}}) {
    HmSvmOptions o;
    o.norm = norm;
    o.c = 0.2;
    o.c_u = 1;
    o.growth.schedule = UnlabeledWeightSchedule::kConstant;
    o.epochs = 3;
    Result<HmSvmResult> r = TrainHmSvm({&labeled, &labels, &unlabeled, &view, 2}, o, {}, {});
    ASSERT_OK(r);
    const RowMatrixXd& w = r.value().weights.observation;
    EXPECT_NEAR(w(0, 1), labeled_alpha, 1e-12) << "norm " << norm;
    EXPECT_NEAR(w(3, 0), -alpha, 1e-12) << "norm " << norm;
    EXPECT_NEAR(w(3, 1), alpha, 1e-12) << "norm " << norm;
    EXPECT_EQ(r.value().epochs.back().disagreements, 1);
  }
}

// C_u = 0 gives the unlabeled slacks no room: the views train on the labeled examples alone.
TEST(HmSvm, ZeroUnlabeledWeightLeavesTheLabeledSolution) {
  const std::vector<SentenceFeatures> labeled = {Tokens({{0, 2}, {1, 3}})};
  const std::vector<std::vector<int32_t>> labels = {{1, 0}};
  const std::vector<SentenceFeatures> unlabeled = {Tokens({{0, 3}, {1, 2}}), Tokens({{1, 2}, {0, 3}})};
  const std::vector<SentenceFeatures> none;
  const std::vector<int32_t> view = {0, 0, 1, 1};
  HmSvmOptions o;
  o.c_u = 0;
  o.epochs = 4;
  Result<HmSvmResult> with = TrainHmSvm({&labeled, &labels, &unlabeled, &view, 2}, o, {}, {});
  Result<HmSvmResult> without = TrainHmSvm({&labeled, &labels, &none, &view, 2}, o, {}, {});
  ASSERT_OK(with);
  ASSERT_OK(without);
  EXPECT_TRUE(with.value().weights.observation.isApprox(without.value().weights.observation, 1e-12));
  EXPECT_TRUE(with.value().weights.transition[0].isApprox(without.value().weights.transition[0], 1e-12));
}

// With C_u > 0 the unlabeled disagreements move the weights, and every α stays feasible: the
// support sequences are finite in number and the run is deterministic.
TEST(HmSvm, UnlabeledDisagreementsMoveTheWeightsDeterministically) {
  const std::vector<SentenceFeatures> labeled = {Tokens({{0, 2}, {1, 3}})};
  const std::vector<std::vector<int32_t>> labels = {{1, 0}};
  const std::vector<SentenceFeatures> unlabeled = {Tokens({{0, 3}, {1, 2}}), Tokens({{1, 2}, {0, 3}})};
  const std::vector<SentenceFeatures> none;
  const std::vector<int32_t> view = {0, 0, 1, 1};
  HmSvmOptions o;
  o.c_u = 1;
  o.growth.schedule = UnlabeledWeightSchedule::kConstant;
  o.epochs = 4;
  Result<HmSvmResult> a = TrainHmSvm({&labeled, &labels, &unlabeled, &view, 2}, o, {}, {});
  Result<HmSvmResult> b = TrainHmSvm({&labeled, &labels, &unlabeled, &view, 2}, o, {}, {});
  Result<HmSvmResult> labeled_only = TrainHmSvm({&labeled, &labels, &none, &view, 2}, o, {}, {});
  ASSERT_OK(a);
  ASSERT_OK(b);
  ASSERT_OK(labeled_only);
  EXPECT_EQ(a.value().weights.observation, b.value().weights.observation);
  EXPECT_GT(a.value().epochs.front().disagreements, 0);
  EXPECT_FALSE(a.value().weights.observation.isApprox(labeled_only.value().weights.observation, 1e-9));
}

// The dual form's scores of a sentence through random support sequences equal the primal scores of
// w = Σ α ΔΦ (ViewScores and the transition block), and so do the Viterbi decisions.
TEST(DualScorer, EqualsThePrimalScoresOfTheSummedWeights) {
  std::mt19937 rng(29);
  const int A = 9, K = 3;
  DualScorer scorer(A, K);
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<SparseJointFeatures> deltas(1 + trial % 7);
    std::vector<WeightedFeatures> support;
    RowMatrixXd w = RowMatrixXd::Zero(A, K), transition = RowMatrixXd::Zero(K, K);
    std::uniform_real_distribution<double> unit(-1, 1);
    for (SparseJointFeatures& d : deltas) {
      for (int64_t index = 0; index < A * K + K * K; ++index)
        if (rng() % 3 == 0) {
          d.index.push_back(index);
          d.value.push_back(static_cast<double>(static_cast<int>(rng() % 5) - 2));
        }
      const double alpha = 0.5 * (unit(rng) + 1);
      support.push_back({alpha, &d});
      for (size_t e = 0; e < d.index.size(); ++e) {
        const int64_t index = d.index[e];
        double& target = index < A * K ? w.data()[index] : transition.data()[index - A * K];
        target += alpha * d.value[e];
      }
    }
    std::vector<std::vector<int32_t>> tokens(1 + trial % 5);
    for (auto& token : tokens)
      for (int j = 0; j < 1 + static_cast<int>(rng() % 4); ++j) token.push_back(static_cast<int32_t>(rng() % A));
    const SentenceFeatures x = Tokens(tokens);
    RowMatrixXd scores, dual_transition, primal_scores;
    scorer.Score(x, support, &scores, &dual_transition);
    ViewScores(w, x, nullptr, 0, &primal_scores);
    EXPECT_LT((scores - primal_scores).cwiseAbs().maxCoeff(), 1e-12) << "trial " << trial;
    EXPECT_LT((dual_transition - transition).cwiseAbs().maxCoeff(), 1e-12) << "trial " << trial;
    EXPECT_EQ(ChainViterbi(scores, dual_transition), ChainViterbi(primal_scores, transition)) << "trial " << trial;
  }
}

// Training in the dual form is the same function of the data: on the cases above, with labeled
// and unlabeled examples, both norms and views, its Σ α ΔΦ equals the primal run's w to 1e-9 and
// the epochs' decisions (margin violations, disagreements) agree. The support and pseudo-sequence
// counts may differ by one or two: an α that one form's rounding leaves at 1e-17 and the other at
// 0, or a repetition that ends on "no α changed" (exact comparison) in one form only. (Where two
// labellings tie exactly — as active constraints of an SVM can — the forms' rounding may break
// the tie differently; these cases have none.)
TEST(HmSvm, DualFormTrainsThePrimalWeights) {
  const std::vector<SentenceFeatures> labeled = {Tokens({{0, 4}, {1, 5}, {2, 6}}), Tokens({{3, 7}, {0, 4}})};
  const std::vector<std::vector<int32_t>> labels = {{1, 0, 2}, {2, 1}};
  const std::vector<SentenceFeatures> unlabeled = {Tokens({{0, 7}, {1, 4}}), Tokens({{2, 5}, {3, 6}, {1, 7}}),
                                                   Tokens({{3, 4}, {0, 6}})};
  const std::vector<int32_t> view = {0, 0, 0, 0, 1, 1, 1, 1};
  const HmPerceptronData data{&labeled, &labels, &unlabeled, &view, 3};
  for (const auto& [views, norm] : std::vector<std::pair<int, int>>{{1, 1}, {1, 2}, {2, 1}, {2, 2}}) {
    HmSvmOptions o;
    o.views = views;
    o.norm = norm;
    o.c_u = 0.5;
    o.growth.schedule = UnlabeledWeightSchedule::kConstant;
    o.epochs = 6;
    Result<HmSvmResult> primal = TrainHmSvm(data, o, {}, {});
    o.form = HmSvmForm::kDual;
    Result<HmSvmResult> dual = TrainHmSvm(data, o, {}, {});
    ASSERT_OK(primal);
    ASSERT_OK(dual);
    const HmPerceptronWeights& p = primal.value().weights;
    const HmPerceptronWeights& d = dual.value().weights;
    EXPECT_GT(p.observation.cwiseAbs().maxCoeff(), 0.1);
    EXPECT_LT((p.observation - d.observation).cwiseAbs().maxCoeff(), 1e-9) << views << " views, norm " << norm;
    for (int v = 0; v < views; ++v)
      EXPECT_LT((p.transition[v] - d.transition[v]).cwiseAbs().maxCoeff(), 1e-9) << views << " views, norm " << norm;
    for (size_t e = 0; e < primal.value().epochs.size(); ++e) {
      const HmSvmEpoch& pe = primal.value().epochs[e];
      const HmSvmEpoch& de = dual.value().epochs[e];
      EXPECT_EQ(pe.margin_violations, de.margin_violations);
      EXPECT_EQ(pe.disagreements, de.disagreements);
      EXPECT_NEAR(pe.support_sequences, de.support_sequences, 2);
      EXPECT_NEAR(pe.unlabeled_pseudo, de.unlabeled_pseudo, 2);
    }
    if (views == 2) {
      EXPECT_GT(primal.value().epochs.front().disagreements, 0);
    }
  }
}

TEST(HmSvm, BadOptionsAreInvalid) {
  const std::vector<SentenceFeatures> labeled = {Tokens({{0}})};
  const std::vector<std::vector<int32_t>> labels = {{1}};
  const std::vector<SentenceFeatures> none;
  const std::vector<int32_t> view = {0};
  const HmPerceptronData data{&labeled, &labels, &none, &view, 2};
  HmSvmOptions o;
  o.norm = 3;
  EXPECT_EQ(TrainHmSvm(data, o, {}, {}).status().code(), StatusCode::kInvalid);
  o.norm = 1;
  o.c = 0;
  EXPECT_EQ(TrainHmSvm(data, o, {}, {}).status().code(), StatusCode::kInvalid);
}

}  // namespace hm_svm_test
}  // namespace seqflow

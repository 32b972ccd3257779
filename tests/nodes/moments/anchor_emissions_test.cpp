// The anchor HMM's emissions on text sampled from a known HMM whose states have anchor words:
// with enough text the QPs recover p(h | w) and Bayes' rule the emissions; λ = 1 returns the
// labeled posterior; the result does not depend on the thread count.
#include "nodes/moments/anchor_emissions.h"

#include <gtest/gtest.h>

#include <random>

#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace anchor_emissions_test {

const std::vector<std::string> kLabels = {"A", "B", "C"};

// 3 states, 8 words: 0-1 anchor A, 2-3 anchor B, 4-5 anchor C, 6 = A or B, 7 = B or C.
struct TrueHmm {
  Eigen::MatrixXd transition{{0.1, 0.6, 0.3}, {0.5, 0.1, 0.4}, {0.3, 0.6, 0.1}};
  Eigen::MatrixXd emission{
      {0.3, 0.2, 0, 0, 0, 0, 0.5, 0}, {0, 0, 0.3, 0.2, 0, 0, 0.2, 0.3}, {0, 0, 0, 0, 0.4, 0.3, 0, 0.3}};
};

std::vector<std::vector<int32_t>> Sample(const TrueHmm& hmm, int sentences, std::vector<std::vector<int32_t>>* states) {
  std::mt19937_64 rng(17);
  std::vector<std::vector<int32_t>> out;
  for (int s = 0; s < sentences; ++s) {
    std::vector<int32_t> words, hidden;
    int h = static_cast<int>(rng() % 3);
    for (int t = 0; t < 12; ++t) {
      Eigen::RowVectorXd emission = hmm.emission.row(h);  // rows of a column-major matrix are strided
      std::discrete_distribution<int> emit(emission.data(), emission.data() + 8);
      words.push_back(emit(rng));
      hidden.push_back(h);
      Eigen::RowVectorXd row = hmm.transition.row(h);
      std::discrete_distribution<int> move(row.data(), row.data() + 3);
      h = move(rng);
    }
    out.push_back(words);
    if (states) states->push_back(hidden);
  }
  return out;
}

const std::vector<std::vector<int32_t>> kAnchors = {{0, 1}, {2, 3}, {4, 5}};

TEST(AnchorEmissions, RecoverTheGeneratingHmmFromMoments) {
  TrueHmm hmm;
  std::vector<std::vector<int32_t>> states;
  auto text = Sample(hmm, 20000, &states);
  Result<MomentCounts> m = CollectMomentCounts(text, 8, 0, CancelToken());
  ASSERT_OK(m);
  AnchorEmissionOptions options;
  options.lambda = 0;
  options.emission_floor = 0;
  Result<AnchorEmissions> e =
      EstimateAnchorEmissions(*m, kAnchors, {Eigen::MatrixXd::Zero(8, 3), {}}, kLabels, options, {});
  ASSERT_OK(e);
  EXPECT_EQ(e->qps, 8);
  EXPECT_EQ(e->not_converged, 0);
  // The true p(h | w) from the sampled states.
  Eigen::MatrixXd joint = Eigen::MatrixXd::Zero(3, 8);
  for (size_t s = 0; s < text.size(); ++s)
    for (size_t t = 0; t < text[s].size(); ++t) joint(states[s][t], text[s][t]) += 1;
  Eigen::MatrixXd posterior = joint * joint.colwise().sum().cwiseInverse().asDiagonal();
  EXPECT_LE((e->posterior - posterior).cwiseAbs().maxCoeff(), 0.03) << e->posterior;
  EXPECT_LE((e->emission - hmm.emission).cwiseAbs().maxCoeff(), 0.03) << e->emission;
  for (int h = 0; h < 3; ++h) EXPECT_NEAR(e->emission.row(h).sum(), 1.0, 1e-12);
}

TEST(AnchorEmissions, LambdaOneKeepsTheLabeledPosteriorAndFloorsUnseenSymbols) {
  auto text = Sample(TrueHmm(), 500, nullptr);
  Result<MomentCounts> m = CollectMomentCounts(text, 9, 0, CancelToken());  // symbol 8 never occurs
  ASSERT_OK(m);
  Eigen::MatrixXd labeled = Eigen::MatrixXd::Zero(9, 3);
  labeled.row(6) << 3, 1, 0;
  AnchorEmissionOptions options;
  options.lambda = 1;
  Result<AnchorEmissions> e = EstimateAnchorEmissions(*m, kAnchors, {labeled, {}}, kLabels, options, {});
  ASSERT_OK(e);
  EXPECT_LE((e->posterior.col(6) - Eigen::Vector3d(0.75, 0.25, 0)).cwiseAbs().maxCoeff(), 1e-9);
  EXPECT_EQ(e->qps, 8);
  for (int h = 0; h < 3; ++h) {
    EXPECT_NEAR(e->emission.row(h).sum(), 1.0, 1e-12);
    EXPECT_NEAR(e->emission(h, 8), 1e-6 / 9, 1e-18);
  }
}

// Projecting contexts with the identity changes nothing; a projection with the wrong row count
// is an error.
TEST(AnchorEmissions, IdentityContextProjectionGivesTheOneHotFit) {
  auto text = Sample(TrueHmm(), 2000, nullptr);
  Result<MomentCounts> m = CollectMomentCounts(text, 8, 0, CancelToken());
  ASSERT_OK(m);
  AnchorEmissionOptions options;
  options.lambda = 0;
  const Eigen::MatrixXd identity = Eigen::MatrixXd::Identity(m->num_contexts(), m->num_contexts());
  Result<AnchorEmissions> plain =
      EstimateAnchorEmissions(*m, kAnchors, {Eigen::MatrixXd::Zero(8, 3), {}}, kLabels, options, {});
  Result<AnchorEmissions> projected =
      EstimateAnchorEmissions(*m, kAnchors, {Eigen::MatrixXd::Zero(8, 3), {}}, kLabels, options, {}, &identity);
  ASSERT_OK(plain);
  ASSERT_OK(projected);
  EXPECT_LE((plain->posterior - projected->posterior).cwiseAbs().maxCoeff(), 1e-9);
  const Eigen::MatrixXd wrong = Eigen::MatrixXd::Identity(5, 5);
  EXPECT_EQ(EstimateAnchorEmissions(*m, kAnchors, {Eigen::MatrixXd::Zero(8, 3), {}}, kLabels, options, {}, &wrong)
                .status()
                .code(),
            StatusCode::kInvalid);
}

// A projection P (C x D) fits each word on Pᵀ q_w with columns Pᵀ R̂: the same QPs as the one-hot
// fit on the projected counts Pᵀ M (whose anchor columns give Pᵀ R̂), however β is grouped.
TEST(AnchorEmissions, ProjectedFitEqualsTheFitOnProjectedCounts) {
  auto text = Sample(TrueHmm(), 2000, nullptr);
  Result<MomentCounts> m = CollectMomentCounts(text, 8, 0, CancelToken());
  ASSERT_OK(m);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> uniform(0, 1);
  const Eigen::MatrixXd p = Eigen::MatrixXd::NullaryExpr(m->num_contexts(), 5, [&] { return uniform(rng); });
  MomentCounts projected_counts = *m;
  projected_counts.cooccurrence = (p.transpose() * Eigen::MatrixXd(m->cooccurrence)).sparseView();
  const Eigen::MatrixXd labeled = Eigen::MatrixXd::Zero(8, 3);
  for (double lambda : {0.0, 0.5}) {
    AnchorEmissionOptions options;
    options.lambda = lambda;
    Result<AnchorEmissions> projected =
        EstimateAnchorEmissions(*m, kAnchors, {labeled, {}}, kLabels, options, {}, &p);
    Result<AnchorEmissions> reference =
        EstimateAnchorEmissions(projected_counts, kAnchors, {labeled, {}}, kLabels, options, {});
    ASSERT_OK(projected);
    ASSERT_OK(reference);
    EXPECT_LE((projected->posterior - reference->posterior).cwiseAbs().maxCoeff(), 1e-9);
    EXPECT_EQ(projected->qps, reference->qps);
  }
}

TEST(AnchorEmissions, DoNotDependOnTheThreadCount) {
  auto text = Sample(TrueHmm(), 3000, nullptr);
  // Many symbols, so the QPs span several shards: each word w is split into w + 8 j copies.
  for (size_t s = 0; s < text.size(); ++s)
    for (auto& w : text[s]) w += 8 * static_cast<int32_t>(s % 100);
  Result<MomentCounts> m = CollectMomentCounts(text, 800, 0, CancelToken());
  ASSERT_OK(m);
  AnchorEmissionOptions one, two;
  one.threads = 1;
  two.threads = 2;
  Eigen::MatrixXd labeled = Eigen::MatrixXd::Zero(800, 3);
  Result<AnchorEmissions> a = EstimateAnchorEmissions(*m, kAnchors, {labeled, {}}, kLabels, one, {});
  Result<AnchorEmissions> b = EstimateAnchorEmissions(*m, kAnchors, {labeled, {}}, kLabels, two, {});
  ASSERT_OK(a);
  ASSERT_OK(b);
  EXPECT_EQ(a->emission, b->emission);
}

TEST(AnchorEmissions, AnchorsAbsentFromTheTextAreAnErrorNamingTheLabel) {
  Result<MomentCounts> m = CollectMomentCounts({{0, 2, 4}}, 8, 0, CancelToken());
  ASSERT_OK(m);
  Result<AnchorEmissions> e = EstimateAnchorEmissions(*m, {{0}, {2}, {5}}, {Eigen::MatrixXd::Zero(8, 3), {}}, kLabels,
                                                      AnchorEmissionOptions(), {});
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().message(), "label 'C': its anchor words never occur in the unlabeled text");
  Eigen::MatrixXd labeled_c = Eigen::MatrixXd::Zero(8, 3);
  labeled_c(4, 2) = 1;
  e = EstimateAnchorEmissions(*m, {{0}, {2}, {}}, {labeled_c, {}}, kLabels, AnchorEmissionOptions(), {});
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().message(), "label 'C' has no anchors and no labeled contexts");
}

// A label of the tag set that neither anchors nor labeled tokens show is left out of the QPs.
TEST(AnchorEmissions, AbsentLabelGetsAUniformEmissionRow) {
  auto text = Sample(TrueHmm(), 2000, nullptr);
  Result<MomentCounts> m = CollectMomentCounts(text, 8, 0, CancelToken());
  ASSERT_OK(m);
  Result<AnchorEmissions> e = EstimateAnchorEmissions(*m, {{0, 1}, {2, 3}, {}}, {Eigen::MatrixXd::Zero(8, 3), {}},
                                                      kLabels, AnchorEmissionOptions(), {});
  ASSERT_OK(e);
  EXPECT_EQ(e->absent_labels, 1);
  EXPECT_EQ(e->posterior.row(2).cwiseAbs().maxCoeff(), 0.0);
  EXPECT_LE((e->emission.row(2).array() - 1.0 / 8).abs().maxCoeff(), 1e-15);
  for (int w = 0; w < 8; ++w) EXPECT_NEAR(e->posterior.col(w).sum(), 1.0, 1e-12);
}

// A label without anchors takes its context moments from labeled tokens: with the sampled states
// as labels, R̂ of that label is the mean context of its tokens, and the QPs still recover p(h | w).
TEST(AnchorEmissions, UnanchoredLabelUsesItsLabeledContexts) {
  TrueHmm hmm;
  std::vector<std::vector<int32_t>> states;
  auto text = Sample(hmm, 20000, &states);
  Result<MomentCounts> m = CollectMomentCounts(text, 8, 0, CancelToken());
  ASSERT_OK(m);
  Eigen::MatrixXd word_label = Eigen::MatrixXd::Zero(8, 3);
  for (size_t s = 0; s < text.size(); ++s)
    for (size_t t = 0; t < text[s].size(); ++t) word_label(text[s][t], states[s][t]) += 1;
  LabeledMoments labeled{word_label, LabeledContextCounts(text, states, 8, 3)};
  AnchorEmissionOptions options;
  options.lambda = 0;
  Result<AnchorEmissions> with_anchors = EstimateAnchorEmissions(*m, kAnchors, labeled, kLabels, options, {});
  Result<AnchorEmissions> without_c = EstimateAnchorEmissions(*m, {{0, 1}, {2, 3}, {}}, labeled, kLabels, options, {});
  ASSERT_OK(with_anchors);
  ASSERT_OK(without_c);
  // Anchors of C have C's contexts in expectation, so both estimates of R̂[:, C] agree closely.
  EXPECT_LE((with_anchors->context_label.col(2) - without_c->context_label.col(2)).cwiseAbs().maxCoeff(), 0.01);
  EXPECT_NEAR(without_c->context_label.col(2).sum(), 2.0, 1e-12);
  EXPECT_LE((with_anchors->posterior - without_c->posterior).cwiseAbs().maxCoeff(), 0.03);
}

}  // namespace anchor_emissions_test
}  // namespace seqflow

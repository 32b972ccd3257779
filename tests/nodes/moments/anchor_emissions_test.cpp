// The anchor HMM's emissions on text sampled from a known HMM whose states have anchor words:
// with enough text the QPs recover p(h | w) and Bayes' rule the emissions; λ = 1 returns the
// labeled posterior; the result does not depend on the thread count.
#include "nodes/moments/anchor_emissions.h"
#include "nodes/moments/feature_moments.h"

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

std::vector<std::vector<int32_t>> Sample(const TrueHmm& hmm, int sentences, std::vector<std::vector<int32_t>>* states,
                                         uint64_t seed = 17) {
  std::mt19937_64 rng(seed);
  std::vector<std::discrete_distribution<int>> emit, move;
  for (int h = 0; h < 3; ++h) {
    const Eigen::RowVectorXd emission = hmm.emission.row(h);  // rows of a column-major matrix are strided
    const Eigen::RowVectorXd transition = hmm.transition.row(h);
    emit.emplace_back(emission.data(), emission.data() + 8);
    move.emplace_back(transition.data(), transition.data() + 3);
  }
  std::vector<std::vector<int32_t>> out;
  for (int s = 0; s < sentences; ++s) {
    std::vector<int32_t> words, hidden;
    int h = static_cast<int>(rng() % 3);
    for (int t = 0; t < 12; ++t) {
      words.push_back(emit[h](rng));
      hidden.push_back(h);
      h = move[h](rng);
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

// The stationary distribution of a transition matrix: its left eigenvector for eigenvalue 1, by
// power iteration (the test chain mixes in a few steps).
Eigen::RowVectorXd Stationary(const Eigen::MatrixXd& t) {
  Eigen::RowVectorXd pi = Eigen::RowVectorXd::Constant(t.rows(), 1.0 / static_cast<double>(t.rows()));
  for (int i = 0; i < 2000; ++i) pi = pi * t;
  return pi;
}

// The expected counts of an endless stationary chain of `hmm` over `tokens` tokens: every token
// has a previous and a next word (no BOS / EOS contexts).
MomentCounts PopulationMoments(const TrueHmm& hmm, double tokens) {
  const Eigen::MatrixXd& t = hmm.transition;
  const Eigen::MatrixXd& o = hmm.emission;  // K x V
  const Eigen::RowVectorXd pi = Stationary(t);
  // previous_word(c, w) = p(x_{t-1} = c, x_t = w) = Σ π(h') O(h', c) T(h', h) O(h, w); the next
  // word's table is its transpose.
  const Eigen::MatrixXd previous_word = o.transpose() * pi.asDiagonal() * t * o;
  const Eigen::Index v = o.cols();
  MomentCounts m;
  m.num_symbols = static_cast<int32_t>(v);
  m.tokens = static_cast<int64_t>(tokens);
  m.word_counts = tokens * (pi * o).transpose();
  Eigen::MatrixXd dense = Eigen::MatrixXd::Zero(2 * (v + 1), v);
  dense.topRows(v) = tokens * previous_word;
  dense.middleRows(v + 1, v) = tokens * previous_word.transpose();
  m.cooccurrence = dense.sparseView();
  return m;
}

// Marinho et al.'s claim where its assumptions hold exactly: from the population moments of an
// HMM whose states have anchors, the QPs give p(h | w) and Bayes' rule the emissions, to the QP's
// tolerance (the anchor HMM), and the feature HMM's means are the emissions' feature averages.
TEST(AnchorEmissions, PopulationMomentsGiveTheGeneratingHmm) {
  const TrueHmm hmm;
  const MomentCounts m = PopulationMoments(hmm, 1e6);
  AnchorEmissionOptions options;
  options.lambda = 0;
  options.emission_floor = 0;
  options.qp.tol = 1e-13;
  const LabeledMoments no_labels{Eigen::MatrixXd::Zero(8, 3), {}};
  Result<AnchorEmissions> e = EstimateAnchorEmissions(m, kAnchors, no_labels, kLabels, options, {});
  ASSERT_OK(e);
  EXPECT_EQ(e->not_converged, 0);
  const Eigen::RowVectorXd p_h = Stationary(hmm.transition);
  const Eigen::RowVectorXd p_w = p_h * hmm.emission;
  const Eigen::MatrixXd truth_posterior = p_h.transpose().asDiagonal() * hmm.emission * p_w.cwiseInverse().asDiagonal();
  EXPECT_LE((e->posterior - truth_posterior).cwiseAbs().maxCoeff(), 1e-9) << e->posterior;
  EXPECT_LE((e->emission - hmm.emission).cwiseAbs().maxCoeff(), 1e-9) << e->emission;
  // The feature HMM's means: identity features and a parity template.
  std::vector<Eigen::Triplet<double>> entries;
  std::vector<std::string> names;
  for (int w = 0; w < 8; ++w) {
    entries.emplace_back(w, w, 1.0);
    entries.emplace_back(w, 8 + w % 2, 1.0);
    names.push_back("w=" + std::to_string(w));
  }
  names.insert(names.end(), {"parity=even", "parity=odd"});
  Eigen::SparseMatrix<double> phi(8, 10);
  phi.setFromTriplets(entries.begin(), entries.end());
  Result<FeatureMeans> means = EstimateAnchorFeatureMeans(m, kAnchors, no_labels, kLabels, phi, TemplatesByName(names),
                                                          FeaturePrior::kTemplate, InterpolatedFeatures::kWords,
                                                          options, {});
  ASSERT_OK(means);
  EXPECT_LE((means->mu - hmm.emission * Eigen::MatrixXd(phi)).cwiseAbs().maxCoeff(), 1e-9) << means->mu;
}

// From samples, the error of the emissions falls as the text grows at the estimator's rate,
// about N^(-1/2): 100 times the text, about a tenth of the error (mean over three samples).
TEST(AnchorEmissions, SampledEmissionErrorFallsAsTheInverseSquareRootOfTheText) {
  const TrueHmm hmm;
  AnchorEmissionOptions options;
  options.lambda = 0;
  options.emission_floor = 0;
  const LabeledMoments no_labels{Eigen::MatrixXd::Zero(8, 3), {}};
  auto error = [&](int sentences) {
    double sum = 0;
    for (uint64_t seed : {1, 2, 3}) {
      const MomentCounts m = ValueOrThrow(CollectMomentCounts(Sample(hmm, sentences, nullptr, seed), 8, 0, {}));
      const AnchorEmissions e = ValueOrThrow(EstimateAnchorEmissions(m, kAnchors, no_labels, kLabels, options, {}));
      sum += (e.emission - hmm.emission).norm();
    }
    return sum / 3;
  };
  const double small = error(1000), large = error(100000);
  EXPECT_GT(small / large, 5.0) << small << " -> " << large;
  EXPECT_LT(small / large, 20.0) << small << " -> " << large;
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

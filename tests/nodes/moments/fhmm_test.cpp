// The feature HMM's kernels: word features, the log-linear fit (finite differences, recovery of a
// known distribution), and the mean parameters (with identity features only they are the anchor
// HMM's emissions by Bayes' rule; supervised means are feature averages).
#include <gtest/gtest.h>

#include <random>

#include "nodes/fhmm/loglinear_emissions.h"
#include "nodes/fhmm/word_features.h"
#include "nodes/moments/feature_moments.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace fhmm_test {

std::vector<std::string> FeaturesOfSymbol(const WordFeatures& f, int32_t w) {
  std::vector<std::string> out;
  const Eigen::SparseMatrix<double, Eigen::RowMajor> rows(f.phi);
  for (Eigen::SparseMatrix<double, Eigen::RowMajor>::InnerIterator it(rows, w); it; ++it)
    out.push_back(f.names[it.col()]);
  std::sort(out.begin(), out.end());
  return out;
}

TEST(WordFeatures, DescribeWordsAndUnknownClasses) {
  Vocab vocab({"@bob", "Obama", "runs", "walks"}, UnknownScheme::kSingle, false);
  WordFeatures f = BuildWordFeatures(vocab);
  EXPECT_EQ(FeaturesOfSymbol(f, vocab.Id("Obama")),
            (std::vector<std::string>{"cap", "pre1=o", "pre2=ob", "pre3=oba", "shape=Xx", "suf1=a", "suf2=ma",
                                      "suf3=ama", "title", "w=Obama"}));
  std::vector<std::string> at = FeaturesOfSymbol(f, vocab.Id("@bob"));
  EXPECT_NE(std::find(at.begin(), at.end(), "at"), at.end());
  EXPECT_EQ(FeaturesOfSymbol(f, vocab.Id("zzz")), (std::vector<std::string>{"unknown", "w=<UNK>"}));
  // A feature is one column however many words have it.
  EXPECT_EQ(std::count(f.names.begin(), f.names.end(), "shape=x"), 1);
}

Eigen::SparseMatrix<double> RandomPhi(int v, int w, std::mt19937_64& rng) {
  std::vector<Eigen::Triplet<double>> t;
  for (int i = 0; i < v; ++i) {
    t.emplace_back(i, i % w, 1.0);
    t.emplace_back(i, static_cast<int>(rng() % w), 1.0);
  }
  Eigen::SparseMatrix<double> phi(v, w);
  phi.setFromTriplets(t.begin(), t.end(), [](double a, double) { return a; });
  return phi;
}

TEST(LogLinearObjective, GradientMatchesFiniteDifferences) {
  std::mt19937_64 rng(3);
  Eigen::SparseMatrix<double> phi = RandomPhi(20, 7, rng);
  Eigen::VectorXd mu = Eigen::VectorXd::LinSpaced(7, 0.1, 0.7), theta = Eigen::VectorXd::LinSpaced(7, -1, 1), g, tmp;
  LogLinearObjective f(phi, mu, 0.3);
  f.Evaluate(theta, g);
  for (int i = 0; i < 7; ++i) {
    Eigen::VectorXd up = theta, down = theta;
    up[i] += 1e-6;
    down[i] -= 1e-6;
    EXPECT_NEAR(g[i], (f.Evaluate(up, tmp) - f.Evaluate(down, tmp)) / 2e-6, 1e-7);
  }
}

TEST(LogLinearEmissions, RecoverTheDistributionWhoseMeansTheyFit) {
  std::mt19937_64 rng(5);
  Eigen::SparseMatrix<double> phi = RandomPhi(30, 12, rng);
  Eigen::MatrixXd truth(2, 30), mu(2, 12);
  for (int h = 0; h < 2; ++h) {
    Eigen::VectorXd theta = Eigen::VectorXd::LinSpaced(12, -1.5 + h, 1.5 - 2 * h);
    LogLinearObjective f(phi, mu.row(h).transpose(), 0);
    Eigen::VectorXd p = f.Distribution(theta);
    truth.row(h) = p.transpose();
    mu.row(h) = (phi.transpose() * p).transpose();
  }
  LogLinearOptions options;
  options.regularization = 1e-9;
  options.lbfgs.gradient_tolerance = 1e-10;
  options.lbfgs.delta = 1e-14;
  Result<Eigen::MatrixXd> fit = FitLogLinearEmissions(phi, mu, options, {});
  ASSERT_OK(fit);
  // Moment matching: the fitted distribution has the target feature means, and (a unique
  // maximum-entropy solution) is the generating one.
  EXPECT_LE((fit->row(0) * phi - mu.row(0)).cwiseAbs().maxCoeff(), 1e-4);
  EXPECT_LE((*fit - truth).cwiseAbs().maxCoeff(), 1e-3);
}

TEST(FeatureMeans, SupervisedMeansAreFeatureAverages) {
  std::mt19937_64 rng(2);
  Eigen::SparseMatrix<double> phi = RandomPhi(6, 4, rng);
  Eigen::MatrixXd counts = Eigen::MatrixXd::Zero(6, 3);
  counts(0, 0) = 2;
  counts(3, 0) = 1;
  counts(5, 1) = 4;
  FeatureMeans m = LabeledFeatureMeans(counts, phi);
  EXPECT_EQ(m.present, (std::vector<bool>{true, true, false}));
  Eigen::MatrixXd dense(phi);
  EXPECT_LE((m.mu.row(0) - (2 * dense.row(0) + dense.row(3)) / 3).cwiseAbs().maxCoeff(), 1e-15);
  EXPECT_LE((m.mu.row(1) - dense.row(5)).cwiseAbs().maxCoeff(), 1e-15);
}

// With one identity feature per word, Eq. 22-24 reduce to Eq. 14-16: μ_h is the anchor HMM's
// emission row.
TEST(FeatureMeans, IdentityFeaturesGiveTheAnchorHmmEmissions) {
  std::mt19937_64 rng(8);
  std::vector<std::vector<int32_t>> text(3000);
  for (auto& s : text) {
    s.resize(8);
    for (size_t t = 0; t < s.size(); ++t) s[t] = static_cast<int32_t>((t % 2) * 4 + rng() % 4);
  }
  Result<MomentCounts> m = CollectMomentCounts(text, 8, 1, CancelToken());
  ASSERT_OK(m);
  const std::vector<std::string> labels = {"A", "B"};
  const std::vector<std::vector<int32_t>> anchors = {{0, 1}, {4, 5}};
  LabeledMoments labeled{Eigen::MatrixXd::Zero(8, 2), {}};
  labeled.word_label(2, 0) = 3;
  AnchorEmissionOptions options;
  options.lambda = 0.5;
  options.emission_floor = 0;
  Eigen::SparseMatrix<double> identity(8, 8);
  identity.setIdentity();
  Result<FeatureMeans> means = EstimateAnchorFeatureMeans(*m, anchors, labeled, labels, identity,
                                                          FeatureTemplates{std::vector<int32_t>(8, 0), 1, 0},
                                                          FeaturePrior::kTemplate, InterpolatedFeatures::kWords, options, {});
  Result<AnchorEmissions> emissions = EstimateAnchorEmissions(*m, anchors, labeled, labels, options, {});
  ASSERT_OK(means);
  ASSERT_OK(emissions);
  EXPECT_LE((means->mu - emissions->emission).cwiseAbs().maxCoeff(), 1e-8);
}

// Two states, A emitting words 0-3 and B words 4-7 in turn, with features beyond identity: an
// exhaustive template pair=lo/hi (even/odd word) and a binary one `odd3` (words 3 and 7 only).
// Under the template prior the blocks of the exhaustive templates of μ_h sum to 1 exactly, and the
// means are the true ones; the identity prior gives the same identity block.
// Text of two alternating states, A emitting words 0-3 and B words 4-7 uniformly (anchors {0, 1}
// and {4, 5}), with features w=0..w=7 (0-7), pair=lo (8, the even words), pair=hi (9), odd3 (10).
struct TwoStateFeatures {
  MomentCounts moments;
  Eigen::SparseMatrix<double> phi{8, 11};
  std::vector<std::string> names;
};

TwoStateFeatures MakeTwoStateFeatures() {
  std::mt19937_64 rng(9);
  std::vector<std::vector<int32_t>> text(6000);
  for (auto& s : text) {
    s.resize(8);
    for (size_t t = 0; t < s.size(); ++t) s[t] = static_cast<int32_t>((t % 2) * 4 + rng() % 4);
  }
  TwoStateFeatures out;
  out.moments = ValueOrThrow(CollectMomentCounts(text, 8, 1, CancelToken()));
  std::vector<Eigen::Triplet<double>> entries;
  for (int w = 0; w < 8; ++w) {
    entries.emplace_back(w, w, 1.0);
    entries.emplace_back(w, w % 2 == 0 ? 8 : 9, 1.0);
    if (w % 4 == 3) entries.emplace_back(w, 10, 1.0);
  }
  out.phi.setFromTriplets(entries.begin(), entries.end());
  for (int w = 0; w < 8; ++w) out.names.push_back("w=" + std::to_string(w));
  out.names.insert(out.names.end(), {"pair=lo", "pair=hi", "odd3"});
  return out;
}

TEST(FeatureMeans, TemplatePriorKeepsEachTemplateADistribution) {
  const TwoStateFeatures problem = MakeTwoStateFeatures();
  const MomentCounts& moments = problem.moments;
  const Eigen::SparseMatrix<double>& phi = problem.phi;
  const std::vector<std::string>& names = problem.names;
  const FeatureTemplates templates = TemplatesByName(names);
  EXPECT_EQ(templates.num_templates, 3);
  const std::vector<std::string> labels = {"A", "B"};
  LabeledMoments labeled{Eigen::MatrixXd::Zero(8, 2), {}};
  labeled.word_label(2, 0) = 3;
  labeled.word_label(3, 0) = 1;
  AnchorEmissionOptions options;
  options.lambda = 0;
  Result<FeatureMeans> means = EstimateAnchorFeatureMeans(moments, {{0, 1}, {4, 5}}, labeled, labels, phi, templates,
                                                          FeaturePrior::kTemplate, InterpolatedFeatures::kWords, options, {});
  ASSERT_OK(means);
  for (int h = 0; h < 2; ++h) {
    EXPECT_NEAR(means->mu.row(h).head(8).sum(), 1.0, 1e-12);
    EXPECT_NEAR(means->mu(h, 8) + means->mu(h, 9), 1.0, 1e-12);
    EXPECT_NEAR(means->mu(h, 8), 0.5, 0.03);
    EXPECT_NEAR(means->mu(h, 10), 0.25, 0.03);
    EXPECT_NEAR(means->identity_prior[h], 0.5, 0.01);
    EXPECT_NEAR(means->eq23_prior[h], 0.5, 0.01);
  }
  // The identity prior gives the same identity block.
  Result<FeatureMeans> shared = EstimateAnchorFeatureMeans(moments, {{0, 1}, {4, 5}}, labeled, labels, phi, templates,
                                                           FeaturePrior::kIdentity, InterpolatedFeatures::kWords, options, {});
  ASSERT_OK(shared);
  EXPECT_LE((shared->mu.leftCols(8) - means->mu.leftCols(8)).cwiseAbs().maxCoeff(), 1e-15);
  // Through an identity context projection the QPs see the same least squares (Eq. 22 on
  // projected contexts).
  const Eigen::MatrixXd projection = Eigen::MatrixXd::Identity(moments.num_contexts(), moments.num_contexts());
  Result<FeatureMeans> projected = EstimateAnchorFeatureMeans(moments, {{0, 1}, {4, 5}}, labeled, labels, phi, templates,
                                                              FeaturePrior::kTemplate, InterpolatedFeatures::kWords, options, {}, &projection);
  ASSERT_OK(projected);
  EXPECT_LE((projected->mu - means->mu).cwiseAbs().maxCoeff(), 1e-9);
  // A projection P (C x D) gives the fit on the projected counts Pᵀ M, however β is grouped.
  std::mt19937_64 projection_rng(11);
  std::uniform_real_distribution<double> uniform(0, 1);
  const Eigen::MatrixXd p =
      Eigen::MatrixXd::NullaryExpr(moments.num_contexts(), 4, [&] { return uniform(projection_rng); });
  MomentCounts projected_counts = moments;
  projected_counts.cooccurrence = (p.transpose() * Eigen::MatrixXd(moments.cooccurrence)).sparseView();
  Result<FeatureMeans> through_p = EstimateAnchorFeatureMeans(moments, {{0, 1}, {4, 5}}, labeled, labels, phi, templates,
                                                              FeaturePrior::kTemplate, InterpolatedFeatures::kWords, options, {}, &p);
  Result<FeatureMeans> on_projected = EstimateAnchorFeatureMeans(
      projected_counts, {{0, 1}, {4, 5}}, labeled, labels, phi, templates, FeaturePrior::kTemplate, InterpolatedFeatures::kWords, options, {});
  ASSERT_OK(through_p);
  ASSERT_OK(on_projected);
  EXPECT_LE((through_p->mu - on_projected->mu).cwiseAbs().maxCoeff(), 1e-9);
  // Two features of one template on a word are refused.
  std::vector<std::string> clash = names;
  clash[10] = "pair=odd3";
  EXPECT_EQ(EstimateAnchorFeatureMeans(moments, {{0, 1}, {4, 5}}, labeled, labels, phi, TemplatesByName(clash),
                                       FeaturePrior::kTemplate, InterpolatedFeatures::kWords, options, {})
                .status()
                .code(),
            StatusCode::kInvalid);
}

// λ = 1 with word 2 (state A, pair=lo) labeled B three times: the word's identity feature takes
// the labeled posterior either way; pair=lo, seen labeled through word 2 alone, keeps its moment
// estimate (half A: words 0 and 2 of A, 4 and 6 of B) when only words are interpolated, and
// becomes all B when every feature seen labeled is.
TEST(FeatureMeans, LambdaPullsOnlyTheWordsSeenLabeledUnlessEveryFeatureIsAsked) {
  const TwoStateFeatures problem = MakeTwoStateFeatures();
  const FeatureTemplates templates = TemplatesByName(problem.names);
  const std::vector<std::string> labels = {"A", "B"};
  LabeledMoments labeled{Eigen::MatrixXd::Zero(8, 2), {}};
  labeled.word_label(2, 1) = 3;
  AnchorEmissionOptions options;
  options.lambda = 1;
  const auto means = [&](InterpolatedFeatures interpolated) {
    return ValueOrThrow(EstimateAnchorFeatureMeans(problem.moments, {{0, 1}, {4, 5}}, labeled, labels, problem.phi,
                                                   templates, FeaturePrior::kTemplate, interpolated, options, {}));
  };
  const FeatureMeans words = means(InterpolatedFeatures::kWords);
  const FeatureMeans features = means(InterpolatedFeatures::kFeatures);
  for (const FeatureMeans* mu : {&words, &features}) {
    EXPECT_EQ(mu->mu(0, 2), 0.0);
    EXPECT_GT(mu->mu(1, 2), 0.0);
  }
  EXPECT_NEAR(words.mu(0, 8), 0.5, 0.03);
  EXPECT_EQ(features.mu(0, 8), 0.0);
  EXPECT_GT(features.mu(1, 8), 0.5);
}

}  // namespace fhmm_test
}  // namespace seqflow

// The second-order CRF objective (CrfLayout order 2) against enumeration (value), central finite
// differences (gradient) and the first-order objective (U = 0).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "nodes/crf/crf_likelihood.h"
#include "nodes/crf/crf_train.h"
#include "tests/testutil/hmm_brute_force.h"

namespace seqflow {
namespace crf_likelihood_order2_test {

struct TinyCorpus {
  std::vector<SentenceFeatures> sentences;
  std::vector<std::vector<int32_t>> labels;
  CrfLayout layout;
};

TinyCorpus MakeCorpus(int sentences, int num_attributes, int num_labels, int max_length, std::mt19937& rng) {
  TinyCorpus c;
  c.layout = {num_attributes, num_labels, 2};
  std::uniform_int_distribution<int> length(1, max_length), attr(0, num_attributes - 1), label(0, num_labels - 1),
      per_token(0, 3);
  for (int n = 0; n < sentences; ++n) {
    SentenceFeatures s;
    s.offsets.push_back(0);
    std::vector<int32_t> y;
    for (int t = 0, T = length(rng); t < T; ++t) {
      for (int i = 0, m = per_token(rng); i < m; ++i) s.ids.push_back(attr(rng));
      s.offsets.push_back(static_cast<int32_t>(s.ids.size()));
      y.push_back(label(rng));
    }
    c.sentences.push_back(std::move(s));
    c.labels.push_back(std::move(y));
  }
  return c;
}

Eigen::VectorXd RandomWeights(const CrfLayout& layout, std::mt19937& rng) {
  std::normal_distribution<double> normal(0, 0.7);
  Eigen::VectorXd w(layout.size());
  for (Eigen::Index i = 0; i < w.size(); ++i) w[i] = normal(rng);
  return w;
}

// -Σ log p(y|x) + ‖w‖²/(2σ²) by enumerating every tag sequence of every sentence.
double BruteForceObjective(const TinyCorpus& c, const Eigen::VectorXd& w, double sigma2) {
  double f = 0.5 * w.squaredNorm() / sigma2;
  const Eigen::VectorXd g = CrfTrigramPotentials(w, c.layout);
  for (size_t n = 0; n < c.sentences.size(); ++n) {
    RowMatrixXd scores;
    CrfScores(w, c.layout, c.sentences[n], scores);
    double z = 0;
    std::vector<int32_t> y(c.labels[n].size(), 0);
    do z += std::exp(SecondOrderScore(scores, g, y));
    while (testutil::NextLabelling(&y, static_cast<int>(c.layout.num_labels)));
    f -= SecondOrderScore(scores, g, c.labels[n]) - std::log(z);
  }
  return f;
}

TEST(CrfLikelihoodOrder2, LayoutAddsTheTrigramBlock) {
  const CrfLayout layout{10, 3, 2};
  EXPECT_EQ(layout.trigram_offset(), 10 * 3 + 9);
  EXPECT_EQ(layout.size(), 10 * 3 + 9 + 4 * 9);
  EXPECT_EQ((CrfLayout{10, 3}).size(), 10 * 3 + 9);
}

TEST(CrfLikelihoodOrder2, ValueMatchesEnumeration) {
  std::mt19937 rng(11);
  const TinyCorpus c = MakeCorpus(6, 5, 3, 5, rng);
  const Eigen::VectorXd w = RandomWeights(c.layout, rng);
  CrfLikelihood f(c.sentences, c.labels, c.layout, 2.0, 1);
  Eigen::VectorXd g;
  EXPECT_NEAR(f.Evaluate(w, g), BruteForceObjective(c, w, 2.0), 1e-10);
}

TEST(CrfLikelihoodOrder2, GradientMatchesFiniteDifferences) {
  for (int K : {3, 9}) {
    std::mt19937 rng(5 + K);
    const TinyCorpus c = MakeCorpus(8, 6, K, 6, rng);
    const Eigen::VectorXd w = RandomWeights(c.layout, rng);
    std::vector<double> values(6);
    for (int a = 0; a < 6; ++a) values[a] = 0.5 + a;
    for (bool with_values : {false, true}) {
      CrfLikelihood f(c.sentences, c.labels, c.layout, 0.5, 2, with_values ? values : std::vector<double>{});
      Eigen::VectorXd g, scratch;
      f.Evaluate(w, g);
      ASSERT_EQ(g.size(), c.layout.size());
      const double h = 1e-5;
      const Eigen::Index stride = K > 3 ? 5 : 1;
      for (Eigen::Index i = 0; i < w.size(); i += stride) {
        Eigen::VectorXd plus = w, minus = w;
        plus[i] += h;
        minus[i] -= h;
        const double numeric = (f.Evaluate(plus, scratch) - f.Evaluate(minus, scratch)) / (2 * h);
        EXPECT_NEAR(g[i], numeric, 1e-6 * std::max(1.0, std::abs(numeric))) << "K " << K << " parameter " << i;
      }
    }
  }
}

TEST(CrfLikelihoodOrder2, ZeroTrigramsGiveTheFirstOrderObjective) {
  std::mt19937 rng(3);
  const TinyCorpus c = MakeCorpus(40, 12, 4, 9, rng);
  Eigen::VectorXd w = RandomWeights(c.layout, rng);
  w.tail(w.size() - c.layout.trigram_offset()).setZero();
  const CrfLayout first{c.layout.num_attributes, c.layout.num_labels};
  CrfLikelihood order2(c.sentences, c.labels, c.layout, 1.5, 1), order1(c.sentences, c.labels, first, 1.5, 1);
  Eigen::VectorXd g2, g1;
  const double f2 = order2.Evaluate(w, g2), f1 = order1.Evaluate(w.head(first.size()), g1);
  EXPECT_NEAR(f2, f1, 1e-9 * std::abs(f1));
  EXPECT_LT((g2.head(first.size()) - g1).cwiseAbs().maxCoeff(), 1e-6);
}

TEST(CrfLikelihoodOrder2, SameBitsForAnyThreadCount) {
  std::mt19937 rng(2);
  const TinyCorpus c = MakeCorpus(300, 40, 4, 12, rng);
  const Eigen::VectorXd w = RandomWeights(c.layout, rng);
  Eigen::VectorXd g1, g4;
  CrfLikelihood one(c.sentences, c.labels, c.layout, 1.0, 1), four(c.sentences, c.labels, c.layout, 1.0, 4);
  EXPECT_EQ(one.Evaluate(w, g1), four.Evaluate(w, g4));
  EXPECT_EQ(g1, g4);
}

// Training with merged duplicate attributes keeps the trigram block and lowers the objective.
TEST(CrfLikelihoodOrder2, TrainingReturnsEveryWeight) {
  std::mt19937 rng(8);
  const TinyCorpus c = MakeCorpus(50, 20, 3, 8, rng);
  CrfTrainOptions options;
  options.order = 2;
  options.lbfgs.max_iterations = 30;
  const Result<CrfTrainResult> trained = TrainCrf(c.sentences, c.labels, 20, 3, options);
  ASSERT_TRUE(trained.ok()) << trained.status().ToString();
  ASSERT_EQ(trained.value().weights.size(), c.layout.size());
  CrfLikelihood f(c.sentences, c.labels, c.layout, options.sigma2, 1);
  Eigen::VectorXd g;
  EXPECT_LT(f.Evaluate(trained.value().weights, g), f.Evaluate(Eigen::VectorXd::Zero(c.layout.size()), g));
  EXPECT_GT(trained.value().weights.tail(TrigramSize(3)).norm(), 0);
}

}  // namespace crf_likelihood_order2_test
}  // namespace seqflow

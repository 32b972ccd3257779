// The CRF objective against enumeration (value) and central finite differences (gradient).
#include "nodes/crf/crf_likelihood.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "tests/testutil/hmm_brute_force.h"

namespace seqflow {
namespace crf_likelihood_test {

struct TinyCorpus {
  std::vector<SentenceFeatures> sentences;
  std::vector<std::vector<int32_t>> labels;
  CrfLayout layout;
};

TinyCorpus MakeCorpus(int sentences, int num_attributes, int num_labels, std::mt19937& rng) {
  TinyCorpus c;
  c.layout = {num_attributes, num_labels};
  std::uniform_int_distribution<int> length(1, 4), attr(0, num_attributes - 1), label(0, num_labels - 1),
      per_token(0, 3);
  for (int n = 0; n < sentences; ++n) {
    SentenceFeatures s;
    s.offsets.push_back(0);
    std::vector<int32_t> y;
    for (int t = 0, T = length(rng); t < T; ++t) {
      for (int i = 0, m = per_token(rng); i < m; ++i) s.ids.push_back(attr(rng));  // repeats allowed
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

// -Σ log p(y|x) + ‖w‖²/(2σ²) by enumerating every labelling of every sentence.
double BruteForceObjective(const TinyCorpus& c, const Eigen::VectorXd& w, double sigma2) {
  double f = 0.5 * w.squaredNorm() / sigma2;
  const auto transition = CrfTransition(w, c.layout);
  for (size_t n = 0; n < c.sentences.size(); ++n) {
    RowMatrixXd scores;
    CrfScores(w, c.layout, c.sentences[n], scores);
    double z = 0;
    std::vector<int32_t> y(c.labels[n].size(), 0);
    do z += std::exp(ChainScore(scores, transition, y));
    while (testutil::NextLabelling(&y, static_cast<int>(c.layout.num_labels)));
    f -= ChainScore(scores, transition, c.labels[n]) - std::log(z);
  }
  return f;
}

TEST(CrfLikelihood, ValueMatchesEnumeration) {
  std::mt19937 rng(11);
  const TinyCorpus c = MakeCorpus(6, 5, 3, rng);
  const Eigen::VectorXd w = RandomWeights(c.layout, rng);
  CrfLikelihood f(c.sentences, c.labels, c.layout, 2.0, 1);
  Eigen::VectorXd g;
  EXPECT_NEAR(f.Evaluate(w, g), BruteForceObjective(c, w, 2.0), 1e-10);
}

TEST(CrfLikelihood, GradientMatchesFiniteDifferences) {
  // K = 3, 9, 22 and 33 take the one-, two- and three-register SIMD paths and the scalar one.
  for (int K : {3, 9, 22, 33}) {
    std::mt19937 rng(5 + K);
    const TinyCorpus c = MakeCorpus(8, 6, K, rng);
    const Eigen::VectorXd w = RandomWeights(c.layout, rng);
    std::vector<double> values(6);
    for (int a = 0; a < 6; ++a) values[a] = 0.5 + a;  // merged attributes fire with values != 1
    for (bool with_values : {false, true}) {
      CrfLikelihood f(c.sentences, c.labels, c.layout, 0.5, 2, with_values ? values : std::vector<double>{});
      Eigen::VectorXd g, scratch;
      f.Evaluate(w, g);
      const double h = 1e-5;
      for (Eigen::Index i = 0; i<w.size(); i += K> 3 ? 7 : 1) {
        Eigen::VectorXd plus = w, minus = w;
        plus[i] += h;
        minus[i] -= h;
        const double numeric = (f.Evaluate(plus, scratch) - f.Evaluate(minus, scratch)) / (2 * h);
        EXPECT_NEAR(g[i], numeric, 1e-6 * std::max(1.0, std::abs(numeric))) << "K " << K << " parameter " << i;
      }
    }
  }
}

TEST(CrfLikelihood, SameBitsForAnyThreadCount) {
  std::mt19937 rng(2);
  const TinyCorpus c = MakeCorpus(500, 40, 4, rng);  // many shards of sentences and attributes
  const Eigen::VectorXd w = RandomWeights(c.layout, rng);
  Eigen::VectorXd g1, g4;
  CrfLikelihood one(c.sentences, c.labels, c.layout, 1.0, 1), four(c.sentences, c.labels, c.layout, 1.0, 4);
  EXPECT_EQ(one.Evaluate(w, g1), four.Evaluate(w, g4));
  EXPECT_EQ(g1, g4);
}

}  // namespace crf_likelihood_test
}  // namespace seqflow

// A second-order CrfModel: its round trip (the order read back from the weight count), its chains
// decoded by the corpus decoders against enumeration, and a pool of it (crf.lop's HybridModel)
// decoding as the CRF does.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "nodes/chain/chain_decode.h"
#include "nodes/crf/crf_model.h"
#include "nodes/crf/hybrid_model.h"
#include "tests/testutil/second_order_brute_force.h"

namespace seqflow {
namespace crf_model_order2_test {

using ::testing::HasSubstr;

const std::vector<std::string> kLabels = {"B", "I", "O"};

std::shared_ptr<Corpus> RandomCorpus(int n, uint32_t seed) {
  static const std::vector<std::string> kWords = {"a", "b", "c", "d"}, kTags = {"N", "V"};
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> length(0, 5), word(0, 3), tag(0, 1);
  auto c = std::make_shared<Corpus>();
  c->columns = {"word", "pos"};
  c->label_names = kLabels;
  c->source = "mem://random";
  for (int s = 0; s < n; ++s) {
    Sentence sentence;
    sentence.cols.resize(2);
    for (int t = length(rng); t > 0; --t) {
      sentence.cols[0].push_back(kWords[word(rng)]);
      sentence.cols[1].push_back(kTags[tag(rng)]);
    }
    c->sentences.push_back(std::move(sentence));
  }
  return c;
}

std::shared_ptr<CrfModel> RandomSecondOrderCrf(const Corpus& corpus, uint32_t seed) {
  auto d = std::make_shared<FeatureDictionary>(
      ValueOrThrow(FeatureDictionary::Compile({{"w", "word[0]", "w"}, {"p", "pos[-1]|pos[0]", "p"}}, corpus.columns)));
  ThrowIfError(d->Fit(corpus, 1));
  auto m = std::make_shared<CrfModel>();
  m->label_names = kLabels;
  m->encoding = TagEncoding::kIob2;
  m->dictionary = std::move(d);
  m->order = 2;
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal(0, 1);
  m->weights.resize(m->layout().size());
  for (double& w : m->weights) w = normal(rng);
  return m;
}

TEST(CrfModelOrder2, RoundTripKeepsTheOrder) {
  const auto corpus = RandomCorpus(20, 1);
  const auto model = RandomSecondOrderCrf(*corpus, 2);
  ByteWriter w;
  model->Save(w);
  const std::string bytes = w.Take();
  ByteReader r(bytes);
  const auto loaded = CrfModel::Load(r);
  EXPECT_EQ(loaded->order, 2);
  EXPECT_EQ(loaded->weights, model->weights);
  EXPECT_THAT(loaded->Describe(), HasSubstr("second-order CRF"));
  // A weight count that fits neither order is corrupt.
  CrfModel bad = *model;
  bad.weights.conservativeResize(bad.weights.size() - 1);
  ByteWriter wb;
  bad.Save(wb);
  const std::string bad_bytes = wb.Take();
  ByteReader rb(bad_bytes);
  EXPECT_THROW(CrfModel::Load(rb), StatusError);
}

TEST(CrfModelOrder2, DecodersMatchEnumeration) {
  const auto corpus = RandomCorpus(60, 3);
  const auto model = RandomSecondOrderCrf(*corpus, 4);
  const ChainCorpus chains = ValueOrThrow(model->Chains(*corpus, 2));
  ASSERT_EQ(chains.tables.trigram.size(), TrigramSize(3));
  const auto viterbi = ChainViterbiCorpus(chains.tables, chains.columns, 2);
  const auto posterior = ChainPosteriorCorpus(chains.tables, chains.columns, 2, nullptr);
  const Eigen::VectorXd g = CrfTrigramPotentials(model->weights, model->layout());
  int decoded = 0;
  ThrowIfError(ForEachCrfScores(*model, *corpus, 1, [&](size_t n, const RowMatrixXd& scores) {
    if (scores.rows() == 0) return;
    const testutil::SecondOrderBruteForce want = testutil::EnumerateSecondOrder(scores, g);
    EXPECT_EQ(viterbi[n], want.best) << n;
    EXPECT_EQ(posterior[n], ArgMaxRows(want.marginals.data(), static_cast<int>(scores.rows()), 3)) << n;
    ++decoded;
  }));
  EXPECT_GT(decoded, 40);
}

// One second-order expert at γ = 1 with no HMMs is the CRF (its scores rounded to float).
TEST(CrfModelOrder2, APoolOfOneSecondOrderExpertDecodesAsTheCrf) {
  const auto corpus = RandomCorpus(60, 7);
  const auto crf = RandomSecondOrderCrf(*corpus, 8);
  HybridModel pool;
  pool.label_names = kLabels;
  pool.encoding = TagEncoding::kIob2;
  pool.experts = {crf};
  pool.gamma = Eigen::VectorXd::Ones(1);
  const ChainCorpus want = ValueOrThrow(crf->Chains(*corpus, 1));
  const ChainCorpus got = ValueOrThrow(pool.Chains(*corpus, 2));
  ASSERT_EQ(got.tables.trigram.size(), TrigramSize(3));
  EXPECT_LT((got.tables.trigram - want.tables.trigram).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_EQ(ChainViterbiCorpus(got.tables, got.columns, 2), ChainViterbiCorpus(want.tables, want.columns, 1));
  std::vector<std::vector<double>> got_marginals, want_marginals;
  ChainPosteriorCorpus(got.tables, got.columns, 2, &got_marginals);
  ChainPosteriorCorpus(want.tables, want.columns, 1, &want_marginals);
  for (size_t n = 0; n < got_marginals.size(); ++n) {
    ASSERT_EQ(got_marginals[n].size(), want_marginals[n].size());
    for (size_t i = 0; i < got_marginals[n].size(); ++i) EXPECT_NEAR(got_marginals[n][i], want_marginals[n][i], 1e-6);
  }
}

}  // namespace crf_model_order2_test
}  // namespace seqflow

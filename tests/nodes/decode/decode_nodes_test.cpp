#include "nodes/decode/decode_nodes.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "nodes/common/random.h"
#include "nodes/hmm/hmm_model.h"
#include "tests/testutil/fake_node_context.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace decode_nodes_test {

constexpr int kStates = 3;
const std::vector<std::string> kWords = {"a", "b", "c"};

std::shared_ptr<HmmModel> RandomModel(int states, uint64_t seed) {
  auto m = std::make_shared<HmmModel>();
  m->vocab = std::make_shared<const Vocab>(kWords, UnknownScheme::kSingle, false);
  for (int i = 0; i < states; ++i) m->label_names.push_back("L" + std::to_string(i));
  m->encoding = TagEncoding::kIob2;
  Rng rng = ShardRng(seed, 0);
  m->params.initial = RandomStochasticRows(1, states, rng).row(0).transpose();
  m->params.transition = RandomStochasticRows(states, states, rng);
  m->params.emission = RandomStochasticRows(states, m->vocab->size(), rng);
  return m;
}

// Random sentences over the vocabulary plus one unknown word; lengths 0 .. max_len.
std::shared_ptr<Corpus> RandomCorpus(size_t n, int max_len, uint64_t seed) {
  auto c = std::make_shared<Corpus>();
  c->columns = {"word"};
  Rng rng = ShardRng(seed, 1);
  for (size_t s = 0; s < n; ++s) {
    Sentence sentence;
    sentence.cols.resize(1);
    int length = static_cast<int>(Uniform01(rng) * (max_len + 1));
    for (int t = 0; t < length; ++t) {
      size_t w = static_cast<size_t>(Uniform01(rng) * (kWords.size() + 1));
      sentence.cols[0].push_back(w < kWords.size() ? kWords[w] : "zzz");
    }
    c->sentences.push_back(std::move(sentence));
  }
  return c;
}

struct BruteForce {
  std::vector<int32_t> viterbi;
  Eigen::MatrixXd marginals;  // [T x K]
};

// Enumerates all K^T label sequences: the joint-argmax path and the exact posteriors.
BruteForce Enumerate(const HmmParams& hmm, const std::vector<int32_t>& x) {
  const int k = hmm.num_states();
  const size_t t_len = x.size();
  BruteForce out{{}, Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(t_len), k)};
  size_t total = 1;
  for (size_t t = 0; t < t_len; ++t) total *= static_cast<size_t>(k);
  double best = -1, z = 0;
  for (size_t code = 0; code < total; ++code) {
    std::vector<int32_t> y(t_len);
    for (size_t t = 0, c = code; t < t_len; ++t, c /= k) y[t] = static_cast<int32_t>(c % k);
    double p = hmm.initial(y[0]) * hmm.emission(y[0], x[0]);
    for (size_t t = 1; t < t_len; ++t) p *= hmm.transition(y[t - 1], y[t]) * hmm.emission(y[t], x[t]);
    z += p;
    for (size_t t = 0; t < t_len; ++t) out.marginals(static_cast<Eigen::Index>(t), y[t]) += p;
    if (p > best) best = p, out.viterbi = y;
  }
  out.marginals /= z;
  return out;
}

std::vector<int32_t> RowArgmax(const Eigen::MatrixXd& m) {
  std::vector<int32_t> out;
  for (Eigen::Index t = 0; t < m.rows(); ++t) {
    Eigen::Index best;
    m.row(t).maxCoeff(&best);
    out.push_back(static_cast<int32_t>(best));
  }
  return out;
}

TEST(DecodeTest, AgreesWithBruteForce) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    auto model = RandomModel(kStates, seed);
    auto corpus = RandomCorpus(40, 4, seed);
    Predictions viterbi = ValueOrThrow(DecodeCorpus(*model, *corpus, DecodeMethod::kViterbi, false, 1));
    Predictions sms = ValueOrThrow(DecodeCorpus(*model, *corpus, DecodeMethod::kSms, true, 1));
    auto symbols = CorpusSymbols(*model->vocab, *corpus);
    ASSERT_EQ(viterbi.labels.size(), corpus->sentences.size());
    ASSERT_EQ(sms.marginals.size(), corpus->sentences.size());
    for (size_t s = 0; s < symbols.size(); ++s) {
      if (symbols[s].empty()) continue;
      BruteForce truth = Enumerate(model->params, symbols[s]);
      EXPECT_EQ(viterbi.labels[s], truth.viterbi) << "sentence " << s;
      EXPECT_EQ(sms.labels[s], RowArgmax(truth.marginals)) << "sentence " << s;
      Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> got(
          sms.marginals[s].data(), truth.marginals.rows(), kStates);
      ASSERT_EQ(sms.marginals[s].size(), static_cast<size_t>(truth.marginals.size()));
      EXPECT_LT((got - truth.marginals).cwiseAbs().maxCoeff(), 1e-12);
    }
  }
}

TEST(DecodeTest, EmptySentenceGivesEmptyLabels) {
  auto model = RandomModel(kStates, 3);
  auto corpus = RandomCorpus(0, 0, 1);
  corpus->sentences.push_back(Sentence{{{}}, {}});
  corpus->sentences.push_back(Sentence{{{"a", "b"}}, {}});
  corpus->sentences.push_back(Sentence{{{}}, {}});
  for (DecodeMethod method : {DecodeMethod::kViterbi, DecodeMethod::kSms}) {
    Predictions p = ValueOrThrow(DecodeCorpus(*model, *corpus, method, true, 2));
    ASSERT_EQ(p.labels.size(), 3u);
    EXPECT_TRUE(p.labels[0].empty());
    EXPECT_EQ(p.labels[1].size(), 2u);
    EXPECT_TRUE(p.labels[2].empty());
  }
  Predictions sms = ValueOrThrow(DecodeCorpus(*model, *corpus, DecodeMethod::kSms, true, 2));
  ASSERT_EQ(sms.marginals.size(), 3u);
  EXPECT_TRUE(sms.marginals[0].empty());
  EXPECT_EQ(sms.marginals[1].size(), 2u * kStates);
}

TEST(DecodeTest, CarriesTheModelsLabelSpace) {
  auto model = RandomModel(kStates, 4);
  Predictions p = ValueOrThrow(DecodeCorpus(*model, *RandomCorpus(3, 4, 2), DecodeMethod::kViterbi, true, 1));
  EXPECT_EQ(p.label_names, model->label_names);
  EXPECT_EQ(p.encoding, TagEncoding::kIob2);
  EXPECT_TRUE(p.marginals.empty());  // Viterbi gives none even when asked
}

TEST(DecodeTest, ThreadCountDoesNotChangeResults) {
  auto model = RandomModel(5, 9);
  auto corpus = RandomCorpus(700, 30, 9);
  for (DecodeMethod method : {DecodeMethod::kViterbi, DecodeMethod::kSms}) {
    Predictions one = ValueOrThrow(DecodeCorpus(*model, *corpus, method, true, 1));
    for (int threads : {2, 3, 8}) {
      Predictions many = ValueOrThrow(DecodeCorpus(*model, *corpus, method, true, threads));
      EXPECT_EQ(many.labels, one.labels) << threads << " threads";
      EXPECT_EQ(many.marginals, one.marginals) << threads << " threads";  // bit-identical
    }
  }
}

Predictions RunKind(const std::string& name, std::shared_ptr<const HmmModel> model,
                    std::shared_ptr<const Corpus> corpus, std::map<std::string, ParamValue> params,
                    std::map<std::string, double>* metrics = nullptr) {
  Registry registry;
  RegisterDecodeNodes(registry);
  const KindSpec* kind = registry.FindKind(name);
  if (kind == nullptr) throw StatusError(Status::NotFound(name));
  testutil::FakeNodeContext ctx(*kind, std::move(params), 4);
  ctx.SetInput("model", std::move(model));
  ctx.SetInput("data", std::move(corpus));
  auto out = std::dynamic_pointer_cast<const Predictions>(kind->run(ctx));
  if (metrics) *metrics = ctx.metrics();
  return *out;
}

TEST(DecodeNodesTest, KindsMatchTheKernels) {
  auto model = RandomModel(kStates, 6);
  auto corpus = RandomCorpus(50, 12, 6);
  std::map<std::string, double> metrics;
  Predictions viterbi = RunKind("decode.viterbi", model, corpus, {}, &metrics);
  EXPECT_EQ(viterbi.labels, ValueOrThrow(DecodeCorpus(*model, *corpus, DecodeMethod::kViterbi, false, 1)).labels);
  EXPECT_EQ(metrics.at("sentences"), 50);
  EXPECT_EQ(metrics.at("tokens"), static_cast<double>(corpus->num_tokens()));
  Predictions sms = RunKind("decode.sms", model, corpus, {});
  EXPECT_TRUE(sms.marginals.empty());  // marginals default to false
  Predictions with = RunKind("decode.sms", model, corpus, {{"marginals", true}});
  Predictions direct = ValueOrThrow(DecodeCorpus(*model, *corpus, DecodeMethod::kSms, true, 1));
  EXPECT_EQ(with.labels, direct.labels);
  EXPECT_EQ(with.marginals, direct.marginals);
}

TEST(DecodeNodesTest, InvalidModelIsRejected) {
  auto model = RandomModel(kStates, 8);
  model->params.transition(0, 0) += 0.1;
  EXPECT_THROW(RunKind("decode.viterbi", model, RandomCorpus(2, 3, 1), {}), StatusError);
}

TEST(DecodeNodesTest, RegistersPredictions) {
  Registry registry;
  RegisterDecodeNodes(registry);
  EXPECT_TRUE(registry.HasArtifactType(Predictions::kType));
  ASSERT_NE(registry.FindKind("decode.sms"), nullptr);
  EXPECT_NE(registry.FindKind("decode.sms")->FindParam("marginals"), nullptr);
}

}  // namespace decode_nodes_test
}  // namespace seqflow

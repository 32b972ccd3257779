// Decoding through the ChainModel interface: a model type that exists only in this test is
// registered as a ChainModel and decoded by decode.viterbi and decode.sms, with no edit to
// nodes/decode, and the results equal enumeration of all labellings.
#include "nodes/chain/chain_model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>

#include "nodes/decode/decode_nodes.h"
#include "tests/testutil/chain_brute_force.h"
#include "tests/testutil/fake_node_context.h"

namespace seqflow {
namespace chain_model_test {

constexpr int kLabels = 3;
const std::vector<std::string> kWords = {"a", "b", "c", "d"};

// Each word of kWords owns a column of a [K x V] table: label scores (kLogScores) or emission
// probabilities with initial weights (kProbabilities). An unknown word is an error.
class ToyModel final : public ChainModel {
 public:
  static constexpr std::string_view kType = "ToyModel";
  static constexpr uint32_t kVersion = 1;

  ChainScoreKind kind = ChainScoreKind::kLogScores;
  std::vector<std::string> labels = {"B-X", "I-X", "O"};
  Eigen::MatrixXd table;       // [K x V]
  Eigen::MatrixXd transition;  // [K x K]
  Eigen::VectorXd initial;     // [K] for probabilities

  std::string_view type() const override { return kType; }
  uint32_t version() const override { return kVersion; }
  void Save(ByteWriter& w) const override { w.F64s(table.data(), static_cast<size_t>(table.size())); }
  static std::shared_ptr<const ToyModel> Load(ByteReader&) { return std::make_shared<ToyModel>(); }

  const std::vector<std::string>& ChainLabels() const override { return labels; }
  TagEncoding ChainEncoding() const override { return TagEncoding::kIob2; }
  Result<ChainCorpus> Chains(const Corpus& data, int) const override {
    ChainCorpus out;
    out.tables = {kind, transition, initial, table.data(), table.cols(), Eigen::VectorXd()};
    for (const Sentence& s : data.sentences) {
      std::vector<int32_t> columns;
      for (const std::string& word : s.words()) {
        auto it = std::find(kWords.begin(), kWords.end(), word);
        if (it == kWords.end()) return Status::Invalid("the toy model does not know '" + word + "'");
        columns.push_back(static_cast<int32_t>(it - kWords.begin()));
      }
      out.columns.push_back(std::move(columns));
    }
    return out;
  }
};

// Rows that are distributions, from positive draws.
Eigen::MatrixXd Stochastic(int rows, int cols, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(0.05, 1.0);
  Eigen::MatrixXd m = Eigen::MatrixXd::NullaryExpr(rows, cols, [&] { return u(rng); });
  return m.array().colwise() / m.rowwise().sum().array();
}

std::shared_ptr<ToyModel> RandomToy(ChainScoreKind kind, uint32_t seed) {
  std::mt19937 rng(seed);
  auto m = std::make_shared<ToyModel>();
  m->kind = kind;
  const int V = static_cast<int>(kWords.size());
  if (kind == ChainScoreKind::kLogScores) {
    m->table = testutil::RandomRows(kLabels, V, 1.5, rng);
    m->transition = testutil::RandomRows(kLabels, kLabels, 1.5, rng);
  } else {
    m->table = Stochastic(kLabels, V, rng);  // B(i, v): rows are distributions
    m->transition = Stochastic(kLabels, kLabels, rng);
    m->initial = Stochastic(1, kLabels, rng).row(0).transpose();
  }
  return m;
}

// Sentences of 0 .. 4 known words.
std::shared_ptr<Corpus> RandomCorpus(int n, uint32_t seed) {
  std::mt19937 rng(seed);
  auto c = std::make_shared<Corpus>();
  c->columns = {"word"};
  for (int s = 0; s < n; ++s) {
    Sentence sentence;
    sentence.cols.resize(1);
    for (int t = 0, len = static_cast<int>(rng() % 5); t < len; ++t) sentence.cols[0].push_back(kWords[rng() % 4]);
    c->sentences.push_back(std::move(sentence));
  }
  return c;
}

// The sentence's chain in log space for the enumerator: s [T x K] and A [K x K].
testutil::ChainBruteForce Enumerate(const ToyModel& m, const Sentence& sentence) {
  const bool probabilities = m.kind == ChainScoreKind::kProbabilities;
  RowMatrixXd s(static_cast<Eigen::Index>(sentence.size()), kLabels);
  for (Eigen::Index t = 0; t < s.rows(); ++t) {
    const auto v = std::find(kWords.begin(), kWords.end(), sentence.words()[t]) - kWords.begin();
    s.row(t) = probabilities ? Eigen::VectorXd(m.table.col(v).array().log()) : Eigen::VectorXd(m.table.col(v));
  }
  if (probabilities) s.row(0) += m.initial.array().log().matrix().transpose();
  const RowMatrixXd a = probabilities ? RowMatrixXd(m.transition.array().log()) : RowMatrixXd(m.transition);
  return testutil::EnumerateChain(s, a);
}

class ChainModelDecode : public ::testing::TestWithParam<ChainScoreKind> {
 protected:
  void SetUp() override {
    RegisterDecodeNodes(registry_);
    registry_.AddArtifactType<ToyModel>({std::string(ChainModel::kInterface)});
  }
  Predictions Run(const std::string& kind_name, std::shared_ptr<const ToyModel> model,
                  std::shared_ptr<const Corpus> corpus) {
    const KindSpec* kind = registry_.FindKind(kind_name);
    testutil::FakeNodeContext ctx(*kind, {{"marginals", true}}, 3);
    ctx.SetInput("model", std::move(model));
    ctx.SetInput("data", std::move(corpus));
    return *std::dynamic_pointer_cast<const Predictions>(kind->run(ctx));
  }
  Registry registry_;
};

TEST_P(ChainModelDecode, TheDecodersAcceptAnyRegisteredChainModel) {
  for (const char* name : {"decode.viterbi", "decode.sms", "decode.tag"}) {
    const PortSpec& port = *registry_.FindKind(name)->FindPort("model");
    EXPECT_TRUE(registry_.Accepts(port, ToyModel::kType)) << name;
    EXPECT_FALSE(registry_.Accepts(port, Corpus::kType)) << name;
    EXPECT_EQ(registry_.PortTypeText(port), "ChainModel (ToyModel)");
  }
}

TEST_P(ChainModelDecode, ViterbiAndSmsEqualEnumeration) {
  for (uint32_t seed = 1; seed <= 4; ++seed) {
    auto model = RandomToy(GetParam(), seed);
    auto corpus = RandomCorpus(40, seed + 100);
    const Predictions viterbi = Run("decode.viterbi", model, corpus);
    const Predictions sms = Run("decode.sms", model, corpus);
    EXPECT_EQ(viterbi.label_names, model->labels);
    EXPECT_EQ(sms.encoding, TagEncoding::kIob2);
    ASSERT_EQ(viterbi.labels.size(), corpus->sentences.size());
    ASSERT_EQ(sms.marginals.size(), corpus->sentences.size());
    for (size_t n = 0; n < corpus->sentences.size(); ++n) {
      const Sentence& sentence = corpus->sentences[n];
      if (sentence.size() == 0) {
        EXPECT_TRUE(viterbi.labels[n].empty() && sms.labels[n].empty() && sms.marginals[n].empty());
        continue;
      }
      const testutil::ChainBruteForce truth = Enumerate(*model, sentence);
      EXPECT_EQ(viterbi.labels[n], truth.best) << "sentence " << n;
      const Eigen::Map<const RowMatrixXd> got(sms.marginals[n].data(), truth.marginals.rows(), kLabels);
      EXPECT_LT((got - truth.marginals).cwiseAbs().maxCoeff(), 1e-12) << "sentence " << n;
      for (Eigen::Index t = 0; t < got.rows(); ++t) {
        Eigen::Index best;
        truth.marginals.row(t).maxCoeff(&best);
        EXPECT_EQ(sms.labels[n][t], best) << "sentence " << n << " token " << t;
      }
    }
  }
}

TEST_P(ChainModelDecode, TheModelsErrorNamesTheNode) {
  auto corpus = RandomCorpus(3, 7);
  corpus->sentences[0].cols[0] = {"a", "zzz"};
  try {
    Run("decode.viterbi", RandomToy(GetParam(), 1), corpus);
    FAIL() << "decoded an unknown word";
  } catch (const StatusError& e) {
    EXPECT_NE(e.status().ToString().find("node 'decode.viterbi'"), std::string::npos) << e.what();
    EXPECT_NE(e.status().ToString().find("does not know 'zzz'"), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(BothScoreKinds, ChainModelDecode,
                         ::testing::Values(ChainScoreKind::kLogScores, ChainScoreKind::kProbabilities));

}  // namespace chain_model_test
}  // namespace seqflow

#include "nodes/hmm/hmm_model.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

#include <gtest/gtest.h>

#include "nodes/common/random.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace hmm_model_test {

std::shared_ptr<const Vocab> SmallVocab() {
  return std::make_shared<const Vocab>(std::vector<std::string>{"the", "cat", "sat", "1993."}, UnknownScheme::kSingle,
                                       false);
}

// A model whose doubles use every bit (random rows), so a lossy round trip would show.
HmmModel RandomModel(int states, uint64_t seed) {
  HmmModel m;
  m.vocab = SmallVocab();
  for (int i = 0; i < states; ++i) m.label_names.push_back("field" + std::to_string(i));
  m.encoding = TagEncoding::kRuns;
  Rng rng = ShardRng(seed, 0);
  m.params.initial = RandomStochasticRows(1, states, rng).row(0).transpose();
  m.params.transition = RandomStochasticRows(states, states, rng);
  m.params.emission = RandomStochasticRows(states, m.vocab->size(), rng);
  return m;
}

bool BitEqual(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<size_t>(a.size())) == 0;
}

std::string Bytes(const Artifact& a) {
  ByteWriter w;
  a.Save(w);
  return w.Take();
}

TEST(HmmModelTest, RoundTripIsBitExact) {
  HmmModel m = RandomModel(3, 7);
  const std::string bytes = Bytes(m);
  ByteReader r(bytes);
  auto loaded = HmmModel::Load(r);
  EXPECT_TRUE(r.AtEnd());
  EXPECT_EQ(loaded->label_names, m.label_names);
  EXPECT_EQ(loaded->encoding, TagEncoding::kRuns);
  EXPECT_EQ(loaded->vocab->words(), m.vocab->words());
  EXPECT_EQ(loaded->vocab->Id("cat"), m.vocab->Id("cat"));
  EXPECT_TRUE(BitEqual(loaded->params.initial, m.params.initial));
  EXPECT_TRUE(BitEqual(loaded->params.transition, m.params.transition));
  EXPECT_TRUE(BitEqual(loaded->params.emission, m.params.emission));
  EXPECT_EQ(Bytes(*loaded), bytes);
}

TEST(HmmModelTest, EveryTruncationIsCorruption) {
  const std::string bytes = Bytes(RandomModel(2, 3));
  for (size_t n = 0; n < bytes.size(); ++n) {
    ByteReader r(std::string_view(bytes).substr(0, n));
    try {
      HmmModel::Load(r);
      ADD_FAILURE() << "loaded from " << n << " of " << bytes.size() << " bytes";
    } catch (const StatusError& e) {
      EXPECT_EQ(e.status().code(), StatusCode::kCorruption) << e.what();
    }
  }
}

TEST(HmmModelTest, EmissionWidthMustMatchVocab) {
  HmmModel m = RandomModel(2, 5);
  m.params.emission = Eigen::MatrixXd::Constant(2, m.vocab->size() + 1, 1.0 / (m.vocab->size() + 1));
  const std::string bytes = Bytes(m);
  ByteReader r(bytes);
  EXPECT_THROW(HmmModel::Load(r), StatusError);
  EXPECT_EQ(ValidateHmmModel(m).code(), StatusCode::kInvalid);
}

TEST(HmmModelTest, Describe) {
  EXPECT_EQ(RandomModel(3, 1).Describe(), "HMM 3 states x " + std::to_string(SmallVocab()->size()) + " symbols");
}

TEST(HmmModelTest, ValidateAcceptsStochasticRows) {
  HmmModel m = RandomModel(4, 11);
  EXPECT_OK(ValidateHmmModel(m));
  EXPECT_OK(ValidateHmmParams(m.params));
}

TEST(HmmModelTest, ValidateNamesTheBadRow) {
  HmmModel m = RandomModel(3, 2);
  m.params.transition(1, 0) += 2e-9;
  Status s = ValidateHmmParams(m.params);
  EXPECT_EQ(s.code(), StatusCode::kNumerical);
  EXPECT_NE(s.message().find("transition row 1"), std::string::npos) << s.ToString();
  // Within the tolerance is fine.
  m.params.transition(1, 0) -= 1.5e-9;
  EXPECT_OK(ValidateHmmParams(m.params));
}

TEST(HmmModelTest, ValidateRejectsNanAndNegative) {
  HmmModel m = RandomModel(2, 4);
  m.params.emission(0, 1) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(ValidateHmmParams(m.params).code(), StatusCode::kNumerical);
  m = RandomModel(2, 4);
  m.params.initial << 1.5, -0.5;
  EXPECT_EQ(ValidateHmmParams(m.params).code(), StatusCode::kNumerical);
}

TEST(HmmModelTest, ValidateChecksShapesAndNames) {
  HmmModel m = RandomModel(3, 9);
  m.label_names.pop_back();
  EXPECT_EQ(ValidateHmmModel(m).code(), StatusCode::kInvalid);
  m = RandomModel(3, 9);
  m.params.transition = Eigen::MatrixXd::Identity(2, 2);
  EXPECT_EQ(ValidateHmmParams(m.params).code(), StatusCode::kInvalid);
  m.vocab = nullptr;
  EXPECT_EQ(ValidateHmmModel(m).code(), StatusCode::kInvalid);
}

TEST(HmmModelTest, CorpusSymbolsUseVocabIds) {
  auto vocab = SmallVocab();
  Corpus corpus;
  corpus.columns = {"word"};
  Sentence s;
  s.cols = {{"the", "dog", "sat"}};
  corpus.sentences = {s, Sentence{{{}}, {}}};
  auto ids = CorpusSymbols(*vocab, corpus);
  ASSERT_EQ(ids.size(), 2u);
  EXPECT_EQ(ids[0], (std::vector<int32_t>{vocab->Id("the"), vocab->Id("dog"), vocab->Id("sat")}));
  EXPECT_GE(ids[0][1], vocab->num_known());  // an unknown class
  EXPECT_TRUE(ids[1].empty());
}

}  // namespace hmm_model_test
}  // namespace seqflow

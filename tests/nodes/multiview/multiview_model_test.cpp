#include "nodes/multiview/multiview_model.h"

#include <gtest/gtest.h>

#include <random>

#include "nodes/chain/chain_decode.h"
#include "nodes/features/view_assignment.h"
#include "tests/testutil/chain_brute_force.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace multiview_model_test {

const std::vector<std::vector<std::string>> kSentences = {
    {"El", "Real"}, {"Madrid", "ganó", "3-1"}, {"La", "UE", "dijo", "sí"}, {"Roma"}};

Corpus Words() {
  Corpus c;
  c.columns = {"word"};
  for (const auto& words : kSentences) c.sentences.push_back(Sentence{{words}, {}});
  return c;
}

// A model over a token / surface dictionary with random weights: W^1, W^2 in their rows, T^1, T^2.
struct RandomModel {
  std::shared_ptr<MultiViewModel> model = std::make_shared<MultiViewModel>();
  RowMatrixXd t1, t2;

  RandomModel(int K, std::mt19937& rng) {
    std::vector<FeatureTemplate> templates;
    for (const char* t : {"word[0]", "suffix2(word[0])", "shape(word[0])", "shape(word[-1])|shape(word[0])"})
      templates.push_back({t, t, t});
    auto dict = std::make_shared<FeatureDictionary>(FeatureDictionary::Compile(templates, {"word"}).value());
    EXPECT_OK(dict->Fit(Words(), 1));
    model->dictionary = dict;
    model->view = AssignViews(*dict, ViewSplit::kTokenSurface, 1).value();
    for (int k = 0; k < K; ++k) model->label_names.push_back("L" + std::to_string(k));
    model->observation = testutil::RandomRows(dict->num_attributes(), K, 1.0, rng);
    t1 = testutil::RandomRows(K, K, 1.0, rng);
    t2 = testutil::RandomRows(K, K, 1.0, rng);
    model->transition = t1 + t2;
  }

  // f^v(x, y) term by term (Eq. 9 with the features of Eq. 2-4).
  double ViewScore(const SentenceFeatures& x, const std::vector<int32_t>& y, int v) const {
    double f = 0;
    for (int t = 0; t < x.size(); ++t) {
      for (int j = x.offsets[t]; j < x.offsets[t + 1]; ++j)
        if (model->view[x.ids[j]] == v) f += model->observation(x.ids[j], y[t]);
      if (t > 0) f += (v == 0 ? t1 : t2)(y[t - 1], y[t]);
    }
    return f;
  }
};

// Eq. 17: decode.viterbi on the model's chains returns argmax_y f^1(x, y) + f^2(x, y).
TEST(MultiViewModel, JointViterbiEqualsBruteForceArgmaxOfSummedViews) {
  std::mt19937 rng(11);
  const Corpus corpus = Words();
  for (int trial = 0; trial < 10; ++trial) {
    const int K = 2 + trial % 2;
    RandomModel m(K, rng);
    Result<ChainCorpus> chains = m.model->Chains(corpus, 2);
    ASSERT_OK(chains);
    const auto paths = ChainViterbiCorpus(chains.value().tables, chains.value().columns, 2);
    for (size_t n = 0; n < corpus.sentences.size(); ++n) {
      const SentenceFeatures x = m.model->dictionary->Extract(corpus.sentences[n]).value();
      std::vector<int32_t> y(x.size(), 0), best;
      double best_score = -1e300;
      do {
        const double f = m.ViewScore(x, y, 0) + m.ViewScore(x, y, 1);
        if (f > best_score) best_score = f, best = y;
      } while (testutil::NextLabelling(&y, K));
      EXPECT_EQ(paths[n], best) << "trial " << trial << " sentence " << n;
    }
  }
}

TEST(MultiViewModel, RoundTripsBitExactlyAndRejectsTruncation) {
  std::mt19937 rng(3);
  RandomModel m(3, rng);
  m.model->encoding = TagEncoding::kIob2;
  ByteWriter w;
  m.model->Save(w);
  ByteReader r(w.bytes());
  auto loaded = MultiViewModel::Load(r);
  EXPECT_EQ(loaded->observation, m.model->observation);
  EXPECT_EQ(loaded->transition, m.model->transition);
  EXPECT_EQ(loaded->view, m.model->view);
  EXPECT_EQ(loaded->label_names, m.model->label_names);
  EXPECT_EQ(loaded->encoding, TagEncoding::kIob2);

  const std::string truncated = w.bytes().substr(0, w.bytes().size() - 8);
  ByteReader short_reader(truncated);
  EXPECT_THROW(MultiViewModel::Load(short_reader), StatusError);
}

}  // namespace multiview_model_test
}  // namespace seqflow

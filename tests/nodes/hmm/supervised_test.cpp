#include "nodes/hmm/supervised.h"

#include <memory>

#include <gtest/gtest.h>

#include "nodes/common/random.h"
#include "nodes/hmm/hmm_nodes.h"
#include "tests/testutil/fake_node_context.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace supervised_test {

using Seqs = std::vector<std::vector<int32_t>>;

// Sentence 1: words 0 1 2 labelled 0 0 1; sentence 2: words 1 2 labelled 0 1. Counts:
// initial [2, 0]; transitions 0->0: 1, 0->1: 2, none from 1;
// emissions state 0: w0 1, w1 2, w2 0; state 1: w2 2.
const Seqs kWords = {{0, 1, 2}, {1, 2}};
const Seqs kLabels = {{0, 0, 1}, {0, 1}};

void ExpectNear(const Eigen::MatrixXd& actual, const Eigen::MatrixXd& expected) {
  ASSERT_EQ(actual.rows(), expected.rows());
  ASSERT_EQ(actual.cols(), expected.cols());
  EXPECT_LT((actual - expected).cwiseAbs().maxCoeff(), 1e-15) << actual << "\nexpected\n" << expected;
}

TEST(SupervisedTest, HandComputedSmoothedCounts) {
  HmmParams p = EstimateSupervisedHmm(kWords, kLabels, 2, 3, HmmSmoothing{0.2, 0.2, 0.05});
  Eigen::VectorXd initial(2);
  initial << 2.2 / 2.4, 0.2 / 2.4;
  Eigen::MatrixXd transition(2, 2);
  transition << 1.2 / 3.4, 2.2 / 3.4, 0.5, 0.5;
  Eigen::MatrixXd emission(2, 3);
  emission << 1.05 / 3.15, 2.05 / 3.15, 0.05 / 3.15, 0.05 / 2.15, 0.05 / 2.15, 2.05 / 2.15;
  ExpectNear(p.initial, initial);
  ExpectNear(p.transition, transition);
  ExpectNear(p.emission, emission);
}

TEST(SupervisedTest, ZeroSmoothingIsTheMle) {
  HmmParams p = EstimateSupervisedHmm(kWords, kLabels, 2, 3, HmmSmoothing{0, 0, 0});
  Eigen::VectorXd initial(2);
  initial << 1, 0;
  Eigen::MatrixXd transition(2, 2);
  transition << 1.0 / 3, 2.0 / 3, 0.5, 0.5;  // state 1 is never left: uniform by convention
  Eigen::MatrixXd emission(2, 3);
  emission << 1.0 / 3, 2.0 / 3, 0, 0, 0, 1;
  ExpectNear(p.initial, initial);
  ExpectNear(p.transition, transition);
  ExpectNear(p.emission, emission);
}

TEST(SupervisedTest, EmptySentencesAreSkipped) {
  Seqs words = kWords, labels = kLabels;
  words.insert(words.begin() + 1, std::vector<int32_t>{});
  labels.insert(labels.begin() + 1, std::vector<int32_t>{});
  HmmParams with = EstimateSupervisedHmm(words, labels, 2, 3, HmmSmoothing{});
  HmmParams without = EstimateSupervisedHmm(kWords, kLabels, 2, 3, HmmSmoothing{});
  EXPECT_EQ(with.initial, without.initial);
  EXPECT_EQ(with.transition, without.transition);
  EXPECT_EQ(with.emission, without.emission);
}

// Draws `n` sentences of length 5..14 from `truth`.
void SampleHmm(const HmmParams& truth, int n, Rng& rng, Seqs* words, Seqs* labels) {
  for (int s = 0; s < n; ++s) {
    int length = 5 + static_cast<int>(Uniform01(rng) * 10);
    std::vector<int32_t> x, y;
    int state = SampleCategorical(truth.initial, rng);
    for (int t = 0; t < length; ++t) {
      if (t > 0) state = SampleCategorical(truth.transition.row(state).transpose(), rng);
      y.push_back(state);
      x.push_back(SampleCategorical(truth.emission.row(state).transpose(), rng));
    }
    words->push_back(std::move(x));
    labels->push_back(std::move(y));
  }
}

TEST(SupervisedTest, GenerateThenRecover) {
  Rng rng = ShardRng(42, 0);
  HmmParams truth;
  truth.initial = RandomStochasticRows(1, 3, rng, 0.1).row(0).transpose();
  truth.transition = RandomStochasticRows(3, 3, rng, 0.1);
  truth.emission = RandomStochasticRows(3, 8, rng, 0.1);
  Seqs words, labels;
  SampleHmm(truth, 20000, rng, &words, &labels);
  HmmParams p = EstimateSupervisedHmm(words, labels, 3, 8, HmmSmoothing{});
  EXPECT_LT((p.initial - truth.initial).cwiseAbs().maxCoeff(), 0.02);
  EXPECT_LT((p.transition - truth.transition).cwiseAbs().maxCoeff(), 0.02);
  EXPECT_LT((p.emission - truth.emission).cwiseAbs().maxCoeff(), 0.02);
}

// --- the hmm.supervised adapter ---

std::shared_ptr<const Vocab> TinyVocab() {
  return std::make_shared<const Vocab>(std::vector<std::string>{"Smith,", "Learning", "1993."}, UnknownScheme::kSingle,
                                       false);
}

std::shared_ptr<Corpus> TinyCorpus() {
  auto c = std::make_shared<Corpus>();
  c->columns = {"word"};
  c->label_names = {"author", "title", "year"};
  c->encoding = TagEncoding::kRuns;
  c->source = "tiny.conll";
  c->sentences.push_back(Sentence{{{"Smith,", "Learning", "Rare", "1993."}}, {0, 1, 1, 2}});
  c->sentences.push_back(Sentence{{{"Jones,", "Learning"}}, {0, 1}});
  return c;
}

TEST(SupervisedNodeTest, MatchesKernelOnVocabIds) {
  auto corpus = TinyCorpus();
  auto vocab = TinyVocab();
  auto model = TrainSupervisedHmm(*corpus, vocab, HmmSmoothing{});
  ASSERT_OK(model);
  const HmmModel& m = **model;
  EXPECT_OK(ValidateHmmModel(m));
  EXPECT_EQ(m.label_names, corpus->label_names);
  EXPECT_EQ(m.encoding, TagEncoding::kRuns);
  EXPECT_EQ(m.vocab, vocab);
  Seqs labels = {{0, 1, 1, 2}, {0, 1}};
  HmmParams expected = EstimateSupervisedHmm(CorpusSymbols(*vocab, *corpus), labels, 3, vocab->size(), HmmSmoothing{});
  EXPECT_EQ(m.params.emission, expected.emission);
  EXPECT_EQ(m.params.transition, expected.transition);
  // The unknown class learned from "Rare" (title) and "Jones," (author).
  const int32_t unk = vocab->Id("Rare");
  EXPECT_GT(m.params.emission(1, unk), m.params.emission(2, unk));
  EXPECT_GT(m.params.emission(0, unk), m.params.emission(2, unk));
}

TEST(SupervisedNodeTest, UnlabeledCorpusIsAClearError) {
  auto corpus = TinyCorpus();
  corpus->label_names.clear();
  for (auto& s : corpus->sentences) s.labels.clear();
  auto model = TrainSupervisedHmm(*corpus, TinyVocab(), HmmSmoothing{});
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), StatusCode::kInvalid);
  EXPECT_NE(model.status().message().find("labeled corpus"), std::string::npos);
  EXPECT_NE(model.status().message().find("tiny.conll"), std::string::npos);
}

// Zero emission smoothing leaves a symbol the labeled text never shows impossible in every state.
TEST(SupervisedHmm, ZeroEmissionSmoothingWithASymbolNoLabelEmitsIsRefused) {
  auto vocab = std::make_shared<const Vocab>(std::vector<std::string>{"Smith,", "Learning", "1993.", "Unseen"},
                                             UnknownScheme::kSingle, false);
  auto model = TrainSupervisedHmm(*TinyCorpus(), vocab, HmmSmoothing{0.2, 0.2, 0.0});
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), StatusCode::kInvalid);
  EXPECT_NE(model.status().message().find("(the first: 'Unseen')"), std::string::npos) << model.status().message();
  EXPECT_NE(model.status().message().find("set smoothing.emission > 0"), std::string::npos);
  // Every symbol seen: zero smoothing is allowed.
  EXPECT_OK(TrainSupervisedHmm(*TinyCorpus(), TinyVocab(), HmmSmoothing{0.2, 0.2, 0.0}));
}

TEST(SupervisedNodeTest, LabelLengthMismatchIsAnError) {
  auto corpus = TinyCorpus();
  corpus->sentences[1].labels.pop_back();
  auto model = TrainSupervisedHmm(*corpus, TinyVocab(), HmmSmoothing{});
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("sentence 2"), std::string::npos) << model.status().ToString();
}

TEST(SupervisedNodeTest, RunsThroughTheRegistry) {
  Registry registry;
  RegisterHmmNodes(registry);
  EXPECT_TRUE(registry.HasArtifactType(HmmModel::kType));
  const KindSpec* kind = registry.FindKind("hmm.supervised");
  ASSERT_NE(kind, nullptr);
  testutil::FakeNodeContext ctx(*kind, {{"smoothing.emission", 0.5}});
  ctx.SetInput("data", TinyCorpus());
  ctx.SetInput("vocab", TinyVocab());
  auto model = std::dynamic_pointer_cast<const HmmModel>(kind->run(ctx));
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(ctx.metrics().at("states"), 3);
  EXPECT_EQ(ctx.metrics().at("symbols"), TinyVocab()->size());
  EXPECT_EQ(ctx.metrics().at("tokens"), 6);
  auto expected = TrainSupervisedHmm(*TinyCorpus(), TinyVocab(), HmmSmoothing{0.2, 0.2, 0.5});
  EXPECT_EQ(model->params.emission, (*expected)->params.emission);
}

TEST(SupervisedNodeTest, UnlabeledInputThrowsFromTheNode) {
  Registry registry;
  RegisterHmmNodes(registry);
  const KindSpec* kind = registry.FindKind("hmm.supervised");
  auto corpus = TinyCorpus();
  corpus->label_names.clear();
  testutil::FakeNodeContext ctx(*kind);
  ctx.SetInput("data", corpus);
  ctx.SetInput("vocab", TinyVocab());
  EXPECT_THROW(kind->run(ctx), StatusError);
}

}  // namespace supervised_test
}  // namespace seqflow

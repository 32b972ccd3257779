// Feature contexts (context_features.h): the mapped counts against a direct count of each token's
// previous/next word features on a tiny corpus, the cut-off, thread-count invariance, the
// labeled contexts mapped alike, and the Moments round trip with feature contexts.
#include "nodes/moments/context_features.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <utility>

#include "nodes/features/moments.h"
#include "nodes/moments/anchor_emissions.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace context_features_test {

// The names of the word features of symbol s.
std::vector<std::string> FeatureNames(const WordFeatures& f, int32_t s) {
  std::vector<std::string> names;
  for (Eigen::Index j = 0; j < f.phi.cols(); ++j)
    if (f.phi.coeff(s, j) != 0) names.push_back(f.names[j]);
  return names;
}

// (context feature name, symbol) -> count, counted token by token; and each name's total.
struct Direct {
  std::map<std::pair<std::string, int32_t>, double> counts;
  std::map<std::string, double> totals;
};

Direct DirectCount(const std::vector<std::vector<int32_t>>& sentences, const WordFeatures& f) {
  Direct d;
  auto add = [&](const std::string& name, int32_t w) {
    d.counts[{name, w}] += 1;
    d.totals[name] += 1;
  };
  for (const auto& x : sentences)
    for (size_t t = 0; t < x.size(); ++t) {
      if (t == 0)
        add("prev:BOS", x[t]);
      else
        for (const std::string& n : FeatureNames(f, x[t - 1])) add("prev:" + n, x[t]);
      if (t + 1 == x.size())
        add("next:EOS", x[t]);
      else
        for (const std::string& n : FeatureNames(f, x[t + 1])) add("next:" + n, x[t]);
    }
  return d;
}

const Vocab& TinyVocab() {
  static const Vocab vocab({"The", "dog", "barks", "@bob", "walked", "#fun", "12", "."}, UnknownScheme::kSingle, false);
  return vocab;
}

void ExpectMatchesDirect(const std::vector<std::vector<int32_t>>& sentences, const Vocab& vocab, int64_t min_count) {
  const WordFeatures words = BuildWordFeatures(vocab);
  Result<MomentCounts> onehot = CollectMomentCounts(sentences, vocab.size(), 1, CancelToken());
  ASSERT_OK(onehot);
  Result<ContextFeatures> f = BuildContextFeatures(words, *onehot, min_count);
  ASSERT_OK(f);
  const MomentCounts m = MapContexts(*onehot, f->map);
  const Direct d = DirectCount(sentences, words);
  ASSERT_EQ(m.num_contexts(), static_cast<int32_t>(f->names.size()));
  std::map<std::string, int> row;
  for (size_t i = 0; i < f->names.size(); ++i) row[f->names[i]] = static_cast<int>(i);
  EXPECT_EQ(row.size(), f->names.size()) << "names repeat";
  // Exactly the features seen min_count times are kept.
  for (const auto& [name, total] : d.totals) EXPECT_EQ(row.count(name), total >= min_count ? 1u : 0u) << name;
  for (const std::string& name : f->names) EXPECT_GE(d.totals.at(name), min_count) << name;
  const Eigen::MatrixXd dense(m.cooccurrence);
  for (const auto& [name, r] : row)
    for (int32_t w = 0; w < vocab.size(); ++w) {
      auto it = d.counts.find({name, w});
      EXPECT_EQ(dense(r, w), it == d.counts.end() ? 0.0 : it->second) << name << " " << w;
    }
  EXPECT_EQ(m.word_counts, onehot->word_counts);
  EXPECT_EQ(m.tokens, onehot->tokens);
}

TEST(ContextFeatures, MatchTheDirectCountOnATinyCorpus) {
  const Vocab& vocab = TinyVocab();
  const std::vector<std::vector<int32_t>> sentences = {vocab.Ids({"The", "dog", "barks", "."}),
                                                       vocab.Ids({"@bob", "walked", "12", "dogs", "#fun"}),
                                                       vocab.Ids({"dog"}),
                                                       {},
                                                       vocab.Ids({"The", "The", "unseen-word", "."})};
  ExpectMatchesDirect(sentences, vocab, 1);
  ExpectMatchesDirect(sentences, vocab, 2);
  ExpectMatchesDirect(sentences, vocab, 4);
}

TEST(ContextFeatures, SpotChecks) {
  const Vocab& vocab = TinyVocab();
  const std::vector<std::vector<int32_t>> sentences = {vocab.Ids({"The", "dog", "barks"}), vocab.Ids({"The", "dog"})};
  Result<MomentCounts> onehot = CollectMomentCounts(sentences, vocab.size(), 1, CancelToken());
  ASSERT_OK(onehot);
  Result<ContextFeatures> f = BuildContextFeatures(BuildWordFeatures(vocab), *onehot, 1);
  ASSERT_OK(f);
  const MomentCounts m = MapContexts(*onehot, f->map);
  auto at = [&](const std::string& name, const std::string& word) {
    const auto it = std::find(f->names.begin(), f->names.end(), name);
    EXPECT_NE(it, f->names.end()) << name;
    return m.cooccurrence.coeff(it - f->names.begin(), vocab.Id(word));
  };
  EXPECT_EQ(at("prev:BOS", "The"), 2);
  EXPECT_EQ(at("prev:cap", "dog"), 2);  // "The" is capitalized
  EXPECT_EQ(at("prev:w=The", "dog"), 2);
  EXPECT_EQ(at("next:suf2=ks", "dog"), 1);  // "barks" follows once
  EXPECT_EQ(at("next:EOS", "dog"), 1);
  EXPECT_EQ(at("next:EOS", "barks"), 1);
}

TEST(ContextFeatures, DoNotDependOnTheThreadCount) {
  std::vector<std::string> words;
  for (int i = 0; i < 60; ++i) words.push_back((i % 3 == 0 ? "W" : "w") + std::to_string(i) + (i % 2 ? "ed" : "s"));
  const Vocab vocab(words, UnknownScheme::kShape, false);
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<int32_t> word(0, vocab.size() - 1), length(0, 25);
  std::vector<std::vector<int32_t>> sentences(8000);
  for (auto& s : sentences) {
    s.resize(static_cast<size_t>(length(rng)));
    for (auto& w : s) w = word(rng);
  }
  const WordFeatures features = BuildWordFeatures(vocab);
  Result<MomentCounts> one = CollectMomentCounts(sentences, vocab.size(), 1, CancelToken());
  Result<MomentCounts> two = CollectMomentCounts(sentences, vocab.size(), 2, CancelToken());
  ASSERT_OK(one);
  ASSERT_OK(two);
  Result<ContextFeatures> f1 = BuildContextFeatures(features, *one, 21);
  Result<ContextFeatures> f2 = BuildContextFeatures(features, *two, 21);
  ASSERT_OK(f1);
  ASSERT_OK(f2);
  EXPECT_EQ(f1->names, f2->names);
  const MomentCounts m1 = MapContexts(*one, f1->map), m2 = MapContexts(*two, f2->map);
  EXPECT_EQ(Eigen::MatrixXd(m1.cooccurrence), Eigen::MatrixXd(m2.cooccurrence));
  EXPECT_EQ(m1.ContextMean(), m2.ContextMean());
  ExpectMatchesDirect(std::vector<std::vector<int32_t>>(sentences.begin(), sentences.begin() + 300), vocab, 21);
}

// Labeled contexts counted one-hot and mapped by F equal the feature counts of the same text.
TEST(ContextFeatures, LabeledContextsMapLikeTheMoments) {
  const Vocab& vocab = TinyVocab();
  const std::vector<std::vector<int32_t>> text = {vocab.Ids({"The", "dog", "barks", "."}),
                                                  vocab.Ids({"@bob", "walked", "."})};
  Result<MomentCounts> onehot = CollectMomentCounts(text, vocab.size(), 1, CancelToken());
  ASSERT_OK(onehot);
  Moments moments;
  moments.vocab = std::make_shared<Vocab>(vocab);
  Result<ContextFeatures> f = BuildContextFeatures(BuildWordFeatures(vocab), *onehot, 1);
  ASSERT_OK(f);
  moments.counts = MapContexts(*onehot, f->map);
  moments.context_names = f->names;
  moments.context_map = f->map;
  // One label per symbol: the label-context counts are the co-occurrence columns.
  std::vector<std::vector<int32_t>> labels = text;
  const Eigen::MatrixXd by_label = moments.MapContexts(LabeledContextCounts(text, labels, vocab.size(), vocab.size()));
  EXPECT_EQ(by_label, Eigen::MatrixXd(moments.counts.cooccurrence));

  ByteWriter w;
  moments.Save(w);
  ByteReader r(w.bytes());
  auto back = Moments::Load(r);
  r.ExpectEnd();
  EXPECT_EQ(back->context_names, moments.context_names);
  EXPECT_EQ(Eigen::MatrixXd(back->context_map), Eigen::MatrixXd(moments.context_map));
  EXPECT_EQ(Eigen::MatrixXd(back->counts.cooccurrence), Eigen::MatrixXd(moments.counts.cooccurrence));
  EXPECT_EQ(back->counts.num_contexts(), static_cast<int32_t>(f->names.size()));
  std::string cut = w.bytes().substr(0, w.bytes().size() - 5);
  ByteReader truncated(cut);
  EXPECT_THROW(Moments::Load(truncated), StatusError);
}

TEST(ContextFeatures, Errors) {
  const Vocab& vocab = TinyVocab();
  Result<MomentCounts> onehot = CollectMomentCounts({vocab.Ids({"The", "dog"})}, vocab.size(), 1, CancelToken());
  ASSERT_OK(onehot);
  const WordFeatures features = BuildWordFeatures(vocab);
  EXPECT_FALSE(BuildContextFeatures(features, *onehot, 0).ok());
  EXPECT_EQ(BuildContextFeatures(features, *onehot, 100).status().message(),
            "context features: no feature context is seen 100 times; lower min_count");
  const WordFeatures other = BuildWordFeatures(Vocab({"a"}, UnknownScheme::kSingle, false));
  EXPECT_FALSE(BuildContextFeatures(other, *onehot, 1).ok());
}

}  // namespace context_features_test
}  // namespace seqflow

// Merging attributes that fire at the same tokens: the grouping itself (the partition refinement
// against the whole corpus's token lists compared), and that training the merged model reaches the
// full model's optimum (attribute_groups.h).
#include "nodes/crf/attribute_groups.h"

#include <gtest/gtest.h>

#include <random>

#include "nodes/crf/crf_likelihood.h"
#include "nodes/crf/crf_train.h"
#include "tests/testutil/attribute_groups_by_index.h"

namespace seqflow {
namespace attribute_groups_test {

SentenceFeatures Sentence(const std::vector<std::vector<int32_t>>& tokens) {
  SentenceFeatures s;
  s.offsets.push_back(0);
  for (const auto& ids : tokens) {
    s.ids.insert(s.ids.end(), ids.begin(), ids.end());
    s.offsets.push_back(static_cast<int32_t>(s.ids.size()));
  }
  return s;
}

TEST(AttributeGroups, GroupsAttributesFiringAtTheSameTokens) {
  // 0 and 1 always together; 2 alone; 3 and 4 both twice at one token; 5 at a subset of 0's tokens.
  const std::vector<SentenceFeatures> corpus = {Sentence({{0, 1, 2}, {5, 1, 0}}), Sentence({{3, 4, 3, 4}, {2}})};
  const AttributeGroups g = GroupDuplicateAttributes(corpus, 6);
  EXPECT_EQ(g.group_of, (std::vector<int32_t>{0, 0, 1, 2, 2, 3}));
  EXPECT_EQ(g.size, (std::vector<int32_t>{2, 1, 2, 1}));
  EXPECT_EQ(g.representative, (std::vector<int32_t>{0, 2, 3, 5}));
  const std::vector<SentenceFeatures> merged = MergeSentences(corpus, g);
  EXPECT_EQ(merged[0].ids, (std::vector<int32_t>{0, 1, 3, 0}));  // once per firing of the first member
  EXPECT_EQ(merged[0].offsets, (std::vector<int32_t>{0, 2, 4}));
  EXPECT_EQ(merged[1].ids, (std::vector<int32_t>{2, 2, 1}));  // multiplicity kept
}

// A random corpus over few attributes, each token firing some of them once or twice, so that
// groups form by chance and by multiplicity (a and b at the same tokens but a twice at one).
std::vector<SentenceFeatures> RandomFirings(std::mt19937& rng, int32_t num_attributes) {
  std::uniform_int_distribution<int> sentences(0, 30), length(1, 6), firings(0, 5), attribute(0, num_attributes - 1),
      twice(0, 3);
  std::vector<SentenceFeatures> corpus;
  for (int n = 0, N = sentences(rng); n < N; ++n) {
    std::vector<std::vector<int32_t>> tokens(length(rng));
    for (auto& ids : tokens)
      for (int f = 0, F = firings(rng); f < F; ++f) {
        const int32_t a = attribute(rng);
        ids.push_back(a);
        if (twice(rng) == 0) ids.push_back(a);
      }
    corpus.push_back(Sentence(tokens));
  }
  return corpus;
}

// The partition refinement finds the groups of the whole corpus's token lists, with the same
// numbering, whether it sees the corpus at once or split anywhere into parts.
TEST(AttributeGroups, RefinementEqualsTheTokenListGroupingOnRandomCorpora) {
  std::mt19937 rng(16);
  for (int trial = 0; trial < 300; ++trial) {
    const int32_t A = std::uniform_int_distribution<int32_t>(1, 12)(rng);
    const std::vector<SentenceFeatures> corpus = RandomFirings(rng, A);
    SCOPED_TRACE("trial " + std::to_string(trial));
    const std::vector<int32_t> expected = testutil::GroupByTokenLists(corpus, A);
    EXPECT_EQ(GroupDuplicateAttributes(corpus, A).group_of, expected);
    AttributePartition parts(A);
    const size_t cut = std::uniform_int_distribution<size_t>(0, corpus.size())(rng);
    parts.Refine(std::vector<SentenceFeatures>(corpus.begin(), corpus.begin() + static_cast<std::ptrdiff_t>(cut)));
    parts.Refine(std::vector<SentenceFeatures>(corpus.begin() + static_cast<std::ptrdiff_t>(cut), corpus.end()));
    const AttributeGroups g = parts.Groups();
    EXPECT_EQ(g.group_of, expected);
    EXPECT_EQ(GroupsOf(g.group_of).size, g.size);
  }
}

// A random corpus where every token also carries two private attributes (duplicates of each other).
std::vector<SentenceFeatures> CorpusWithDuplicates(std::mt19937& rng, std::vector<std::vector<int32_t>>& labels,
                                                   int32_t& num_attributes) {
  std::uniform_int_distribution<int> length(1, 4), shared(0, 5), label(0, 2);
  std::vector<SentenceFeatures> corpus;
  num_attributes = 6;
  for (int n = 0; n < 12; ++n) {
    std::vector<std::vector<int32_t>> tokens;
    std::vector<int32_t> y;
    for (int t = 0, T = length(rng); t < T; ++t) {
      tokens.push_back({shared(rng), num_attributes, num_attributes + 1});
      num_attributes += 2;
      y.push_back(label(rng));
    }
    corpus.push_back(Sentence(tokens));
    labels.push_back(y);
  }
  return corpus;
}

TEST(AttributeGroups, MergedObjectiveEqualsFullObjectiveAtExpandedWeights) {
  std::mt19937 rng(4);
  std::vector<std::vector<int32_t>> labels;
  int32_t A = 0;
  const auto corpus = CorpusWithDuplicates(rng, labels, A);
  const AttributeGroups g = GroupDuplicateAttributes(corpus, A);
  ASSERT_LT(g.num_groups(), A);
  const CrfLayout merged{g.num_groups(), 3}, full{A, 3};
  std::normal_distribution<double> normal(0, 0.5);
  Eigen::VectorXd u(merged.size()), grad_merged, grad_full;
  for (auto& x : u) x = normal(rng);
  const std::vector<SentenceFeatures> merged_corpus = MergeSentences(corpus, g);
  CrfLikelihood f_merged(merged_corpus, labels, merged, 0.7, 1, GroupFeatureValues(g));
  CrfLikelihood f_full(corpus, labels, full, 0.7, 1);
  const Eigen::VectorXd w = ExpandGroupWeights(u, g, 3);
  EXPECT_NEAR(f_merged.Evaluate(u, grad_merged), f_full.Evaluate(w, grad_full), 1e-10);
}

TEST(AttributeGroups, TrainingReachesTheFullModelsOptimum) {
  std::mt19937 rng(9);
  std::vector<std::vector<int32_t>> labels;
  int32_t A = 0;
  const auto corpus = CorpusWithDuplicates(rng, labels, A);
  CrfTrainOptions options;
  options.sigma2 = 0.5;
  options.lbfgs.memory = 6;  // as written before crf.train's 4 single-precision pairs became the default
  options.lbfgs.float_history = false;
  options.lbfgs.delta = 0;
  options.lbfgs.gradient_tolerance = 1e-10;
  options.merge_duplicates = false;
  const CrfTrainResult full = ValueOrThrow(TrainCrf(corpus, labels, A, 3, options));
  options.merge_duplicates = true;
  const CrfTrainResult merged = ValueOrThrow(TrainCrf(corpus, labels, A, 3, options));
  EXPECT_LT(merged.trained_weights, full.trained_weights);
  EXPECT_NEAR(merged.optimizer.objective, full.optimizer.objective, 1e-9);
  EXPECT_LT((merged.weights - full.weights).cwiseAbs().maxCoeff(), 1e-7);
}

}  // namespace attribute_groups_test
}  // namespace seqflow

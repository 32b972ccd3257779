// H(y | x) per token against enumeration of every labelling, a model with zero entries, the
// marginal-entropy bound, thread invariance and a zero-probability sentence.
#include "nodes/homotopy/sequence_entropy.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tests/nodes/homotopy/homotopy_testutil.h"

namespace seqflow {
namespace sequence_entropy_test {

using testutil::RandomHmm;

double BruteForceSequenceEntropy(const HmmParams& hmm, const IdSentences& corpus) {
  double h = 0, tokens = 0;
  for (const auto& x : corpus) {
    double z = 0;
    std::vector<int32_t> y(x.size(), 0);
    do z += testutil::JointProbability(hmm, x, y);
    while (testutil::NextLabelling(&y, hmm.num_states()));
    std::fill(y.begin(), y.end(), 0);
    do {
      const double p = testutil::JointProbability(hmm, x, y) / z;
      if (p > 0) h -= p * std::log(p);
    } while (testutil::NextLabelling(&y, hmm.num_states()));
    tokens += static_cast<double>(x.size());
  }
  return h / tokens;
}

TEST(SequenceEntropy, MatchesEnumeration) {
  for (uint64_t seed : {1, 2, 3}) {
    const HmmParams hmm = RandomHmm(3, 5, seed, 0.05);
    const IdSentences corpus = testutil::RandomCorpus(6, 1, 5, 5, seed + 10);
    const double h = ValueOrThrow(MeanSequenceEntropy(hmm, corpus, 1));
    EXPECT_NEAR(h, BruteForceSequenceEntropy(hmm, corpus), 1e-12) << seed;
    // Subadditivity: the labelling's entropy is at most the sum of its marginals' entropies.
    EXPECT_LE(h, testutil::BruteForceMeanEntropy(hmm, corpus) + 1e-12);
    EXPECT_GT(h, 0);
  }
}

TEST(SequenceEntropy, ZeroEntriesContributeNothing) {
  HmmParams hmm = RandomHmm(3, 4, 7, 0.0);
  hmm.transition(0, 2) = 0;
  hmm.transition.row(0) /= hmm.transition.row(0).sum();
  hmm.emission(1, 3) = 0;
  hmm.emission.row(1) /= hmm.emission.row(1).sum();
  const IdSentences corpus = testutil::RandomCorpus(5, 2, 5, 4, 8);
  EXPECT_NEAR(ValueOrThrow(MeanSequenceEntropy(hmm, corpus, 1)), BruteForceSequenceEntropy(hmm, corpus), 1e-12);
}

TEST(SequenceEntropy, ThreadCountDoesNotChangeTheResult) {
  const HmmParams hmm = RandomHmm(4, 6, 9, 0.05);
  const IdSentences corpus = testutil::RandomCorpus(200, 1, 12, 6, 10);
  EXPECT_EQ(ValueOrThrow(MeanSequenceEntropy(hmm, corpus, 1)), ValueOrThrow(MeanSequenceEntropy(hmm, corpus, 2)));
}

TEST(SequenceEntropy, ImpossibleSentenceIsNumerical) {
  HmmParams hmm = RandomHmm(2, 3, 4, 0.0);
  hmm.emission.col(2).setZero();
  for (int k = 0; k < 2; ++k) hmm.emission.row(k) /= hmm.emission.row(k).sum();
  const Result<double> h = MeanSequenceEntropy(hmm, {{0, 2, 1}}, 1);
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.status().code(), StatusCode::kNumerical);
}

}  // namespace sequence_entropy_test
}  // namespace seqflow

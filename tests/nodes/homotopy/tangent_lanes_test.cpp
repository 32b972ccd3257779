// The lane-batched tangent-linear forward-backward (tangent_lanes.h) against the single-sentence
// pass of sentence_lattice.h, sentence by sentence and through CountCovariance::Apply: mixed
// lengths (1 to 40) in one batch, partial batches, a dead sentence, thread-count independence.
#include "nodes/homotopy/tangent_lanes.h"

#include <gtest/gtest.h>

#include <numeric>

#include "nodes/homotopy/count_covariance.h"
#include "tests/nodes/homotopy/homotopy_testutil.h"

namespace seqflow {
namespace {

using testutil::RandomCorpus;
using testutil::RandomHmm;

double MaxAbs(const Eigen::MatrixXd& m) { return m.size() == 0 ? 0.0 : m.cwiseAbs().maxCoeff(); }

LogDirection EmissionDirection(int K, int V, uint64_t seed) {
  LogDirection u;
  u.initial = Eigen::VectorXd::LinSpaced(K, -1.0, 2.0);
  u.transition = Eigen::MatrixXd::Zero(K, K);
  u.emission = Eigen::MatrixXd::Random(K, V) * (1.0 + static_cast<double>(seed % 3));
  u.transition_free = false;
  return u;
}

// Σ over `ids` of the single-sentence tangent, and the same through one lane batch.
void CompareOnBatch(const HmmParams& hmm, const IdSentences& corpus, std::vector<size_t> ids, uint64_t seed) {
  const int K = hmm.num_states();
  const int V = hmm.num_symbols();
  std::vector<SentenceLattice> lattices(corpus.size());
  for (size_t s : ids) BuildLattice(hmm, corpus[s], &lattices[s]);
  const LogDirection u = EmissionDirection(K, V, seed);
  ExpectedCounts want = ExpectedCounts::Zero(K, V);
  TangentWork work;
  for (size_t s : ids) AddCountTangent(hmm, corpus[s], lattices[s], u, &work, &want);
  LatticeBatch<kLanes> batch;
  PackLatticeBatch<kLanes>(hmm, corpus, ids, lattices, &batch);
  TangentLaneWork<kLanes> lane_work;
  ExpectedCounts got = ExpectedCounts::Zero(K, V);
  AddCountTangentLanes<kLanes>(hmm, batch, u, &lane_work, &got);
  const double scale = 1 + MaxAbs(want.emission);
  EXPECT_LE(MaxAbs(got.emission - want.emission), 1e-12 * scale) << "K=" << K << " V=" << V;
  EXPECT_LE(MaxAbs(got.initial - want.initial), 1e-12 * scale) << "K=" << K << " V=" << V;
  EXPECT_GT(MaxAbs(want.emission), 0.0);
  EXPECT_EQ(got.transition, Eigen::MatrixXd::Zero(K, K));
}

TEST(TangentLanes, FullBatchOfMixedLengthsMatchesSingleSentencePass) {
  for (int K : {1, 3, 13, 17}) {
    const HmmParams hmm = RandomHmm(K, 20, 50 + K, 0.3);
    const IdSentences corpus = RandomCorpus(kLanes, 1, 40, 20, 60 + K);
    std::vector<size_t> ids(kLanes);
    std::iota(ids.begin(), ids.end(), 0);
    CompareOnBatch(hmm, corpus, ids, K);
  }
}

TEST(TangentLanes, PartialBatchMatchesSingleSentencePass) {
  const HmmParams hmm = RandomHmm(5, 7, 71, 0.3);
  const IdSentences corpus = RandomCorpus(3, 2, 30, 7, 72);
  CompareOnBatch(hmm, corpus, {2, 0}, 1);
  CompareOnBatch(hmm, corpus, {1}, 2);
}

// Through CountCovariance: sentences of probability zero (a symbol no state emits) and empty
// ones are left out of the lanes, and the result is that of the transition-free kernel's
// single-sentence pass, bit-identical for any thread count.
TEST(TangentLanes, CovarianceApplyMatchesScalarAndIsThreadIndependent) {
  HmmParams hmm = RandomHmm(4, 9, 81, 0.3);
  hmm.emission.col(8).setZero();
  hmm.emission.array().colwise() /= hmm.emission.rowwise().sum().array();
  IdSentences corpus = RandomCorpus(150, 1, 25, 8, 82);
  corpus[7] = {1, 8, 2};
  corpus[40].clear();
  const PomLayout frozen(4, 9, FreeBlocks{true, false, true});
  const PomLayout free(4, 9, FreeBlocks{true, true, true});
  const CountCovariance one(frozen, hmm, corpus, 1);
  const CountCovariance two(frozen, hmm, corpus, 2);
  const CountCovariance scalar(free, hmm, corpus, 1);
  const Eigen::VectorXd u = Eigen::VectorXd::LinSpaced(frozen.num_params(), -2.0, 1.0);
  const Eigen::VectorXd got = one.Apply(u);
  EXPECT_EQ(got, two.Apply(u));
  // The same direction in the all-free layout: zero on the transition block.
  Eigen::VectorXd u_free = Eigen::VectorXd::Zero(free.num_params());
  u_free.head(4) = u.head(4);
  u_free.tail(36) = u.tail(36);
  const Eigen::VectorXd want = scalar.Apply(u_free);
  Eigen::VectorXd want_frozen(frozen.num_params());
  want_frozen << want.head(4), want.tail(36);
  EXPECT_LE(MaxAbs(got - want_frozen), 1e-12 * (1 + MaxAbs(want_frozen)));
  EXPECT_TRUE(got.allFinite());
}

}  // namespace
}  // namespace seqflow

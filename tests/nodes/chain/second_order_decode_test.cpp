// The corpus decoders on second-order tables (ChainTables::trigram) against enumeration: the
// Viterbi path and the posterior labelling, for sentences spread over several lane batches and
// shards, the same for any thread count.
#include <gtest/gtest.h>

#include <random>

#include "nodes/chain/chain_decode.h"
#include "nodes/chain/second_order_lanes.h"
#include "tests/testutil/chain_brute_force.h"
#include "tests/testutil/second_order_brute_force.h"

namespace seqflow {
namespace second_order_decode_test {

TEST(SecondOrderDecode, CorpusDecodersMatchEnumeration) {
  std::mt19937 rng(4);
  const int K = 3;
  std::uniform_int_distribution<int> length(0, 5);
  std::normal_distribution<double> normal(0, 1.5);
  ChainTables tables;
  tables.transition = Eigen::MatrixXd::Zero(K, K);
  tables.trigram.resize(TrigramSize(K));
  for (Eigen::Index i = 0; i < tables.trigram.size(); ++i) tables.trigram[i] = normal(rng);
  std::vector<std::vector<int32_t>> sentences(150);
  int32_t columns = 0;
  for (auto& s : sentences) {
    for (int t = 0, T = length(rng); t < T; ++t) s.push_back(columns++);
  }
  std::shuffle(sentences.begin(), sentences.end(), rng);  // columns in no particular order
  const RowMatrixXd scores = testutil::RandomRows(columns, K, 1.5, rng);
  tables.table = scores.data();
  tables.columns = columns;

  std::vector<std::vector<double>> marginals;
  const auto viterbi = ChainViterbiCorpus(tables, sentences, 1);
  const auto posterior = ChainPosteriorCorpus(tables, sentences, 1, &marginals);
  EXPECT_EQ(ChainViterbiCorpus(tables, sentences, 3), viterbi);
  std::vector<std::vector<double>> marginals3;
  EXPECT_EQ(ChainPosteriorCorpus(tables, sentences, 3, &marginals3), posterior);
  EXPECT_EQ(marginals3, marginals);
  for (size_t n = 0; n < sentences.size(); ++n) {
    const int T = static_cast<int>(sentences[n].size());
    if (T == 0) {
      EXPECT_TRUE(viterbi[n].empty());
      EXPECT_TRUE(posterior[n].empty());
      continue;
    }
    RowMatrixXd s(T, K);
    for (int t = 0; t < T; ++t) s.row(t) = scores.row(sentences[n][t]);
    const testutil::SecondOrderBruteForce want = testutil::EnumerateSecondOrder(s, tables.trigram);
    EXPECT_EQ(viterbi[n], want.best) << "sentence " << n;
    EXPECT_EQ(posterior[n], ArgMaxRows(want.marginals.data(), T, K)) << "sentence " << n;
    for (int i = 0; i < T * K; ++i) EXPECT_NEAR(marginals[n][i], want.marginals.data()[i], 1e-10);
  }
}

}  // namespace second_order_decode_test
}  // namespace seqflow

// One sentence decoded alone (the HM perceptron's case: it updates after every sentence), T = 32
// tokens (esp.train's mean), random scores and transitions, one thread; an iteration decodes the
// next of 256 sentences, so that branch predictors cannot learn one:
//   BM_OneChainViterbi/K    viterbi_one_chain.h: the labels in lanes
//   BM_LaneZeroViterbi/K    lane 0 of viterbi_lanes.h's 8-chain batch (linear_chain.h's form)
// Run: build/bench/kernels/viterbi_one_chain_bench
#include <benchmark/benchmark.h>

#include <random>

#include "nodes/chain/viterbi_lanes.h"
#include "nodes/chain/viterbi_one_chain.h"

namespace seqflow {
namespace {

constexpr int kTokens = 32, kSentences = 256;

RowMatrixXd Random(int rows, int cols, std::mt19937& rng) {
  std::normal_distribution<double> normal(0, 1);
  RowMatrixXd m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = normal(rng);
  return m;
}

void BM_OneChainViterbi(benchmark::State& state) {
  const int K = static_cast<int>(state.range(0));
  std::mt19937 rng(1);
  const RowMatrixXd scores = Random(kTokens * kSentences, K, rng);
  const OneChainViterbiModel model = OneChainViterbiModel::FromLogPotentials(Random(K, K, rng));
  OneChainViterbiWork work;
  std::vector<int32_t> path(kTokens);
  int n = 0;
  for (auto _ : state) {
    const double* sentence = scores.data() + static_cast<size_t>(n) * kTokens * K;
    benchmark::DoNotOptimize(OneChainViterbi(model, sentence, kTokens, &work, path.data()));
    n = (n + 1) % kSentences;
  }
}
BENCHMARK(BM_OneChainViterbi)->Arg(5)->Arg(9)->Arg(17)->Arg(45);

void BM_LaneZeroViterbi(benchmark::State& state) {
  const int K = static_cast<int>(state.range(0));
  std::mt19937 rng(1);
  const RowMatrixXd scores = Random(kTokens * kSentences, K, rng);
  const ChainViterbiModel model = ChainViterbiModel::FromLogPotentials(Random(K, K, rng));
  ChainViterbiWork work;
  std::vector<int32_t> row_ids, path(kTokens);
  LaneBatch<kLanes> batch;
  batch.obs[0] = ChainRowIds(kTokens, &row_ids);
  batch.length = kTokens;
  std::array<double, kLanes> best{};
  int n = 0;
  for (auto _ : state) {
    const double* sentence = scores.data() + static_cast<size_t>(n) * kTokens * K;
    ChainViterbiRun(model, {sentence, false}, batch, &work, {path.data()}, &best);
    benchmark::DoNotOptimize(best);
    n = (n + 1) % kSentences;
  }
}
BENCHMARK(BM_LaneZeroViterbi)->Arg(5)->Arg(9)->Arg(17)->Arg(45);

}  // namespace
}  // namespace seqflow

BENCHMARK_MAIN();

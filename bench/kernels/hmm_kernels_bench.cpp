// Tokens per second of the HMM inference kernels on one thread, K = 12, 23, 45 states
// (workload: hmm_bench_data.h). Run: build/bench/kernels/hmm_kernels_bench
// The *Single benchmarks loop over sentences with the one-sentence API (lane 0 of a batch), to
// show what lane batching buys.
#include <benchmark/benchmark.h>

#include <map>

#include "bench/kernels/hmm_bench_data.h"
#include "nodes/hmm/forward_backward.h"
#include "nodes/hmm/viterbi.h"

namespace seqflow::bench {
namespace {

constexpr int kSentences = 4096;  // ~98k tokens

const HmmWorkload& Workload(int K) {
  static std::map<int, HmmWorkload> cache;
  auto it = cache.find(K);
  if (it == cache.end()) it = cache.emplace(K, MakeHmmWorkload(K, kSentences)).first;
  return it->second;
}

void SetTokenRate(benchmark::State& state, int64_t tokens) {
  state.counters["tokens_per_s"] = benchmark::Counter(
      static_cast<double>(tokens) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_ForwardBackwardCounts(benchmark::State& state) {
  const HmmWorkload& w = Workload(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    ExpectedCounts counts = CorpusExpectedCounts(w.hmm, w.sentences, 1);
    benchmark::DoNotOptimize(counts.log_likelihood);
  }
  SetTokenRate(state, w.tokens);
}

void BM_ForwardBackwardCountsSingle(benchmark::State& state) {
  const HmmWorkload& w = Workload(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    ExpectedCounts counts = ExpectedCounts::Zero(w.hmm.num_states(), w.hmm.num_symbols());
    for (const auto& s : w.sentences) AccumulateExpectedCounts(w.hmm, s, 1.0, &counts);
    benchmark::DoNotOptimize(counts.log_likelihood);
  }
  SetTokenRate(state, w.tokens);
}

void BM_Viterbi(benchmark::State& state) {
  const HmmWorkload& w = Workload(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    auto paths = ViterbiCorpus(w.hmm, w.sentences, 1);
    benchmark::DoNotOptimize(paths.data());
  }
  SetTokenRate(state, w.tokens);
}

void BM_ViterbiSingle(benchmark::State& state) {
  const HmmWorkload& w = Workload(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    for (const auto& s : w.sentences) benchmark::DoNotOptimize(Viterbi(w.hmm, s).data());
  }
  SetTokenRate(state, w.tokens);
}

void BM_PosteriorDecode(benchmark::State& state) {
  const HmmWorkload& w = Workload(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    auto labels = PosteriorDecodeCorpus(w.hmm, w.sentences, 1, nullptr);
    benchmark::DoNotOptimize(labels.data());
  }
  SetTokenRate(state, w.tokens);
}

BENCHMARK(BM_ForwardBackwardCounts)->Arg(12)->Arg(23)->Arg(45)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Viterbi)->Arg(12)->Arg(23)->Arg(45)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PosteriorDecode)->Arg(12)->Arg(23)->Arg(45)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ForwardBackwardCountsSingle)->Arg(12)->Arg(45)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ViterbiSingle)->Arg(12)->Arg(45)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace seqflow::bench

BENCHMARK_MAIN();

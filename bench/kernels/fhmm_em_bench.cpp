// One EM iteration of the feature HMM on the Malagasy raw text (Garrette et al.; 43,600
// sentences, 777,678 tokens; data root $SEQFLOW_DATA, else ../shared/data), words with fewer than
// 3 occurrences pooled into shape classes, K = 12 states of a fixed random HMM:
// BM_FhmmEStep/threads: forward-backward expected counts over the corpus (the E-step of hmm.em
//   and fhmm.em alike). Counter: tokens/s.
// BM_FhmmMStep/threads/warm: Eq. 25's L-BFGS fit of every label's weights to those counts' feature
//   means (nodes/fhmm/fhmm_em.h), from θ = 0 (warm = 0) or from the fit of the same counts
//   (warm = 1: what a warm start gains at best).
// Run: build/bench/kernels/fhmm_em_bench
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <random>

#include "bench/kernels/malagasy_raw.h"
#include "nodes/fhmm/fhmm_em.h"
#include "nodes/fhmm/word_features.h"

namespace seqflow {
namespace {

constexpr int kStates = 12;

// The raw text's symbols and word features, and a fixed random HMM of kStates states over them.
struct Setup {
  WordFeatures features;
  HmmParams hmm;
};

const Setup& Malagasy() {
  static const Setup setup = [] {
    const MalagasyRawText& raw = MalagasyRaw();
    Setup s;
    s.features = BuildWordFeatures(*raw.vocab);
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(0.1, 1.0);
    const int v = raw.vocab->size();
    s.hmm.initial = Eigen::VectorXd::NullaryExpr(kStates, [&] { return u(rng); });
    s.hmm.initial /= s.hmm.initial.sum();
    s.hmm.transition = Eigen::MatrixXd::NullaryExpr(kStates, kStates, [&] { return u(rng); });
    s.hmm.emission = Eigen::MatrixXd::NullaryExpr(kStates, v, [&] { return u(rng); });
    for (int i = 0; i < kStates; ++i) {
      s.hmm.transition.row(i) /= s.hmm.transition.row(i).sum();
      s.hmm.emission.row(i) /= s.hmm.emission.row(i).sum();
    }
    return s;
  }();
  return setup;
}

void BM_FhmmEStep(benchmark::State& state) {
  const Setup& s = Malagasy();
  for (auto _ : state) {
    ExpectedCounts c = CorpusExpectedCounts(s.hmm, MalagasyRaw().symbols, static_cast<int>(state.range(0)));
    benchmark::DoNotOptimize(c.log_likelihood);
  }
  state.counters["tokens/s"] = benchmark::Counter(
      static_cast<double>(MalagasyRaw().tokens) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_FhmmEStep)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_FhmmMStep(benchmark::State& state) {
  const Setup& s = Malagasy();
  static const ExpectedCounts counts = CorpusExpectedCounts(s.hmm, MalagasyRaw().symbols, 0);
  FhmmEmOptions options;
  options.threads = static_cast<int>(state.range(0));
  Eigen::MatrixXd fitted = Eigen::MatrixXd::Zero(kStates, s.features.phi.cols());
  if (state.range(1) == 1) (void)FhmmMStep(counts, s.features.phi, options, {}, fitted).value();
  for (auto _ : state) {
    Eigen::MatrixXd theta = fitted;
    HmmParams m = std::move(FhmmMStep(counts, s.features.phi, options, {}, theta)).value();
    benchmark::DoNotOptimize(m.emission.data());
  }
  state.counters["features"] = static_cast<double>(s.features.phi.cols());
}
BENCHMARK(BM_FhmmMStep)->Args({1, 0})->Args({2, 0})->Args({1, 1})->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace seqflow

BENCHMARK_MAIN();

// Ji, Watson & Carin's semi-supervised HMM classifier on the generated data of datasets/
// hmm_class_data.h (seed 1):
//   BM_EmJacobian/case     EM_0, EM_1 and both Jacobians at the supervised start (one map
//                          evaluation of the probability-one path), 2-state classes fitted
//   BM_Path/case/loose     one whole draw: Baum-Welch with 10 restarts per class, the tracked
//                          path (19) to λ = 1, the point at λ = U/(L+U); loose = 1 tracks with
//                          HOMPACK's arc tolerance 5e-5 instead of the kind's 1e-6
//   BM_Table1/draws        Table I: the mismatched draws on 2 threads (see below)
// case 0 = matched (§V-B: 980 unlabeled of length 5, alphabet 5), 1 = mismatched (700 unlabeled of
// length 8, alphabet 10). One thread unless said. Counter: map evaluations per path.
// Run: build/bench/kernels/classifier_homotopy_bench
#include <benchmark/benchmark.h>

#include "datasets/hmm_class_data.h"
#include "nodes/common/parallel.h"
#include "nodes/homotopy/ji_experiment.h"

namespace seqflow {
namespace {

const HmmClassData& Data(int kase) {
  static const HmmClassData matched = SampleHmmClassData(MatchedHmmClassSpec(), 1);
  static const HmmClassData mismatched = SampleHmmClassData(MismatchedHmmClassSpec(), 1);
  return kase == 0 ? matched : mismatched;
}

int Symbols(int kase) { return kase == 0 ? 5 : 10; }

void BM_EmJacobian(benchmark::State& state) {
  const int kase = static_cast<int>(state.range(0));
  const HmmClassData& all = Data(kase);
  ClassifierData d;
  for (size_t i = 0; i < all.sequences.size(); ++i) {
    if (i % 36 == 0) {
      d.labeled.push_back(all.sequences[i]);
      d.labels.push_back(all.labels[i]);
    } else {
      d.unlabeled.push_back(all.sequences[i]);
    }
  }
  ClassifierTrainOptions train;
  train.restarts = 2;
  const ClassifierTrainResult sup = ValueOrThrow(TrainHmmClassifier(d.labeled, d.labels, 2, Symbols(kase), train));
  const ClassifierLayout layout(2, 2, Symbols(kase));
  const Eigen::VectorXd theta = layout.Stack(sup.model);
  ClassifierEmOptions o;
  o.jacobians = true;
  for (auto _ : state) benchmark::DoNotOptimize(ValueOrThrow(EvaluateClassifierEm(layout, theta, d, o)).em1.data());
  state.counters["unlabeled"] = static_cast<double>(d.unlabeled.size());
}

void BM_Path(benchmark::State& state) {
  const int kase = static_cast<int>(state.range(0));
  const HmmClassData& all = Data(kase);
  JiDrawOptions o;
  if (state.range(1) > 0) o.path.tracker.arc_rel_tol = o.path.tracker.arc_abs_tol = 5e-5;
  int evaluations = 0;
  for (auto _ : state) {
    const JiDrawResult r = ValueOrThrow(RunJiDraw(all.sequences, all.labels, 2, Symbols(kase), 0, o));
    evaluations = r.path.evaluations;
  }
  state.counters["evaluations"] = evaluations;
}

// Table I: `draws` seeded draws of the mismatched case on 2 threads (draws in parallel, fixed
// shards); counters: paths returning near λ = 0, the mean relative accuracy improvement over the
// supervised start of last-λ≈0, U/(L+U) and λ_ME (percent), and the most evaluations of a path.
void BM_Table1(benchmark::State& state) {
  const int draws = static_cast<int>(state.range(0));
  const HmmClassData& all = Data(1);
  std::vector<JiDrawResult> results(draws);
  std::vector<Status> failures(draws);
  for (auto _ : state) {
    ParallelShards(draws, 1, 2, [&](size_t, size_t begin, size_t end) {
      for (size_t d = begin; d < end; ++d) {
        Result<JiDrawResult> r = RunJiDraw(all.sequences, all.labels, 2, 10, static_cast<int>(d), JiDrawOptions{});
        if (r.ok()) results[d] = std::move(r).value();
        else failures[d] = r.status();
      }
    });
  }
  double returned = 0, last0 = 0, mle = 0, me = 0, worst = 0, failed = 0;
  for (int d = 0; d < draws; ++d) {
    if (!failures[d].ok()) {
      ++failed;
      continue;
    }
    const JiDrawResult& r = results[d];
    returned += r.returns > 0;
    last0 += 100 * (r.last_lambda_zero - r.supervised) / r.supervised;
    mle += 100 * (r.mle - r.supervised) / r.supervised;
    me += 100 * (r.max_entropy - r.supervised) / r.supervised;
    worst = std::max(worst, static_cast<double>(r.path.evaluations));
  }
  const double ok = draws - failed;
  state.counters["failed"] = failed;
  state.counters["returned"] = returned;
  state.counters["last0_pct"] = last0 / ok;
  state.counters["mle_pct"] = mle / ok;
  state.counters["me_pct"] = me / ok;
  state.counters["max_evals"] = worst;
}

BENCHMARK(BM_EmJacobian)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Path)->Args({0, 0})->Args({1, 0})->Args({0, 1})->Args({1, 1})->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_Table1)->Arg(60)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();

}  // namespace
}  // namespace seqflow

BENCHMARK_MAIN();

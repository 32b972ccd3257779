// The EM_λ path to λ = 1 on the citation-scale workload of homotopy_bench_data.h (K = 13, emission
// block free, P = 13 V, 1,000 unlabeled sentences of mean length 37), one thread, matrix-free:
//   BM_CurveNormalFlow  TraceEmLambdaCurve (normal flow through the folds, land on λ = 1)
//   BM_CurveNormalFlowPreconditioned  the same with GMRES right-preconditioned by the per-word
//                       blocks of word_block_preconditioner.h
//   BM_CurveNormalFlowInexact  the same with the Newton steps solved to 1e-4 (tangents to 1e-9)
//   BM_CurvePseudoArclength    Inexact with the pseudo-arclength corrector (Newton rows fixed to
//                       the predictor's direction: one tangent solve per step, normal_flow.h)
//   BM_CurvePseudoRecycled     PseudoArclength with GMRES recycling up to 300 directions between the
//                       restarts of each solve (GCRO; recycling_gmres.h): the same points
//   BM_CurveLanczosValue       PseudoRecycled with Lanczos stopped on μ_max's error estimate (1e-6,
//                       the side of 1/λ certain; lanczos.h) instead of its residual alone
//   BM_CurvePredictedStop      PseudoRecycled accepting a correction once the next Newton step is
//                       predicted within the tolerance (normal_flow.h, predicted_stop)
//   BM_CurveFourthStep         PseudoRecycled with both: LanczosValue and PredictedStop
//   BM_CurveChordRecycled      PseudoArclength with the chord corrector (every Newton step with the
//                       first iterate's Jacobian) and GMRES recycling 300 directions between its
//                       restarts and the chord's solves (recycling_gmres.h)
//   BM_CurveEuler       TraceEmLambdaPath (Euler predictor + pseudo-arclength corrector), the
//                       node's defaults otherwise: the same path with the tracker it replaces
// Counters: points, folds (sign changes of dλ/ds), det_changes (of the sign of 1 − λ μ_max), final λ, stop (0 = reached
// λ = 1), the largest ‖ρ‖∞ at a point before the landing on λ = 1, and the J products per point: in the linear solves
// (solve_pp) and in the Lanczos μ_max (lanczos_pp) — the load-free measure of a variant. Run:
// build/bench/kernels/em_lambda_curve_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <algorithm>

#include "bench/kernels/homotopy_bench_data.h"
#include "nodes/homotopy/em_lambda_curve.h"
#include "nodes/homotopy/path_tracker.h"

namespace seqflow {
namespace {

using bench::GetHomotopyWorkload;

void Report(benchmark::State& state, const PathResult& r) {
  int folds = 0;
  for (size_t k = 1; k < r.points.size(); ++k)
    folds += (r.points[k].dlambda_ds > 0) != (r.points[k - 1].dlambda_ds > 0);
  double residual = 0;
  for (size_t k = 0; k + 1 < r.points.size(); ++k) residual = std::max(residual, r.points[k].residual);
  state.counters["points"] = static_cast<double>(r.points.size());
  state.counters["max_residual"] = residual;
  state.counters["folds"] = folds;
  int det_changes = 0;
  for (size_t k = 1; k < r.points.size(); ++k) det_changes += r.points[k].det_sign != r.points[k - 1].det_sign;
  state.counters["det_changes"] = det_changes;
  state.counters["lambda_end"] = r.points.back().lambda;
  state.counters["stop"] = static_cast<double>(r.stop);
  const double n = static_cast<double>(r.points.size());
  state.counters["solve_pp"] = static_cast<double>(r.solve_products) / n;
  state.counters["lanczos_pp"] = static_cast<double>(r.spectrum_products) / n;
}

struct Variant {
  bool precondition = false;
  double step_gmres_tol = 0;
  bool pseudo_arclength = false;
  bool chord = false;
  int recycle = 0;
  double lanczos_value_tol = 0;
  bool predicted_stop = false;
};

void CurveNormalFlow(benchmark::State& state, const Variant& v) {
  const bench::HomotopyWorkload& w = GetHomotopyWorkload(static_cast<int>(state.range(0)));
  EmLambdaCurveOptions options;
  options.precondition = v.precondition;
  options.step_gmres_tol = v.step_gmres_tol;
  options.tracker.pseudo_arclength = v.pseudo_arclength;
  options.tracker.chord = v.chord;
  options.gmres_recycle = v.recycle;
  options.tracker.predicted_stop = v.predicted_stop;
  options.tracker.first_step = 0.01;
  options.tracker.max_step = 0.25;
  options.tracker.arc_rel_tol = options.tracker.arc_abs_tol = 1e-6;
  options.linear.gmres.rel_tol = 1e-9;
  options.linear.lanczos.rel_tol = 1e-6;
  options.linear.lanczos.value_rel_tol = v.lanczos_value_tol;
  PathResult r;
  for (auto _ : state) r = ValueOrThrow(TraceEmLambdaCurve(w.layout, w.supervised, w.em0, w.unlabeled, options));
  Report(state, r);
}

void BM_CurveNormalFlow(benchmark::State& state) { CurveNormalFlow(state, {}); }
void BM_CurveNormalFlowPreconditioned(benchmark::State& state) { CurveNormalFlow(state, {.precondition = true}); }
void BM_CurveNormalFlowInexact(benchmark::State& state) { CurveNormalFlow(state, {.step_gmres_tol = 1e-4}); }
void BM_CurvePseudoArclength(benchmark::State& state) {
  CurveNormalFlow(state, {.step_gmres_tol = 1e-4, .pseudo_arclength = true});
}
void BM_CurvePseudoRecycled(benchmark::State& state) {
  CurveNormalFlow(state, {.step_gmres_tol = 1e-4, .pseudo_arclength = true, .recycle = 300});
}
void BM_CurveLanczosValue(benchmark::State& state) {
  CurveNormalFlow(state, {.step_gmres_tol = 1e-4, .pseudo_arclength = true, .recycle = 300, .lanczos_value_tol = 1e-6});
}
void BM_CurvePredictedStop(benchmark::State& state) {
  CurveNormalFlow(state, {.step_gmres_tol = 1e-4, .pseudo_arclength = true, .recycle = 300, .predicted_stop = true});
}
void BM_CurveFourthStep(benchmark::State& state) {
  CurveNormalFlow(state, {.step_gmres_tol = 1e-4,
                          .pseudo_arclength = true,
                          .recycle = 300,
                          .lanczos_value_tol = 1e-6,
                          .predicted_stop = true});
}
void BM_CurveChordRecycled(benchmark::State& state) {
  CurveNormalFlow(state, {.step_gmres_tol = 1e-4, .pseudo_arclength = true, .chord = true, .recycle = 300});
}

void BM_CurveEuler(benchmark::State& state) {
  const bench::HomotopyWorkload& w = GetHomotopyWorkload(static_cast<int>(state.range(0)));
  PathOptions options;
  options.step = 0.01;
  options.max_step = 0.25;
  options.corrector_tol = 1e-7;
  options.linear.gmres.rel_tol = 1e-9;
  options.linear.lanczos.rel_tol = 1e-6;
  PathResult r;
  for (auto _ : state) r = ValueOrThrow(TraceEmLambdaPath(w.layout, w.supervised, w.em0, w.unlabeled, options));
  Report(state, r);
}

BENCHMARK(BM_CurveNormalFlow)->Arg(50)->Arg(200)->Arg(800)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_CurveNormalFlowPreconditioned)->Arg(50)->Arg(200)->Arg(800)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_CurveNormalFlowInexact)->Arg(50)->Arg(200)->Arg(800)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_CurvePseudoArclength)->Arg(50)->Arg(200)->Arg(800)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_CurvePseudoRecycled)->Arg(50)->Arg(200)->Arg(800)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_CurveLanczosValue)->Arg(50)->Arg(200)->Arg(800)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_CurvePredictedStop)->Arg(50)->Arg(200)->Arg(800)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_CurveFourthStep)->Arg(50)->Arg(200)->Arg(800)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_CurveChordRecycled)->Arg(50)->Arg(200)->Arg(800)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_CurveEuler)->Arg(50)->Arg(200)->Arg(800)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace
}  // namespace seqflow

BENCHMARK_MAIN();

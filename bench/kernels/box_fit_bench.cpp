// The small box-constrained fits: our projected quasi-Newton (nodes/optim/box_lbfgs.h) against
// LBFGS++ 0.1's L-BFGS-B (LBFGSpp::LBFGSBSolver, Moré–Thuente line search; Debian
// liblbfgspp-dev), with the same memory, the same projected-gradient stop ‖P(x − g) − x‖_inf
// and the same relative-decrease stop (delta, over one iteration).
//   solver: 0 ours; 1 LBFGS++; 2 LBFGS++ with every lower bound lifted by 1e-12, so that a
//     barrier that is +inf on a face is finite on the box (LBFGS++'s line search cannot step
//     back from +inf). An exception from LBFGS++ counts as a failure (counter failed = 1; x is
//     then whatever point it last tried).
//   BM_GammaFit/solver/signal/hmms/xi: HySOL's Γ fit as FitCombinationWeights runs it (from the
//     uniform Γ; gradient tolerance 1e-4, delta 1e-10, memory 10): minimise −(Eq. 3) − ξ' Σ log γ
//     over [0, 1]^(I+J) on the held-out fifth (every 5th sentence, 42,250 tokens) of the
//     hybrid_bench_data.h workload with informative experts of the given signal (1: weak,
//     3: strong), the HMMs at their MAP estimate on the other 4/5. hmms 0: the LOP of the 4
//     experts (crf.lop); 1: the 4 experts and 18 HMMs (crf.hysol). xi: ξ' in thousandths (0; 100
//     and 1000 = the pipelines' 0.1 for LOP-CRF and 1.0 for HySOL and its LOP of the 4/5
//     experts); ξ' > 0 makes f = +inf on every face γ_k = 0.
//   BM_SyntheticBox/solver/n/xi: f = ½ xᵀQx + cᵀx − ξ Σ log x over [0, 1]^n, Q = AᵀA + 0.01 I
//     (A [n x n] uniform in [−1, 1]), the unconstrained minimiser uniform in [−1, 2]^n (so bounds
//     bind on both sides without the barrier), ξ in thousandths; tight: tolerance 1e-8, delta 0.
// Counters: evaluations (f and ∇f), iterations, f and kkt = ‖P(x − ∇f) − x‖_inf at the result
// (full precision with --benchmark_format=json). One thread (the machine is shared).
// Run: build/bench/kernels/box_fit_bench
#include <LBFGSB.h>
#include <benchmark/benchmark.h>

#include <cmath>
#include <exception>
#include <map>
#include <random>

#include "bench/kernels/hybrid_bench_data.h"
#include "nodes/crf/hysol_train.h"
#include "nodes/optim/box_lbfgs.h"

namespace seqflow {
namespace {

struct Fit {
  double objective = 0;
  int iterations = 0;
  int evaluations = 0;
  bool failed = false;
};

Fit Ours(Objective& f, Eigen::VectorXd& x, const Eigen::VectorXd& lower, const Eigen::VectorXd& upper,
         const BoxLbfgsOptions& options) {
  const Result<BoxLbfgsResult> r = MinimizeInBox(f, x, lower, upper, options);
  if (!r.ok()) return {0, 0, 0, true};
  return {r->objective, r->iterations, r->evaluations, r->stop == BoxLbfgsStop::kLineSearchFailed};
}

Fit Lbfgspp(Objective& f, Eigen::VectorXd& x, const Eigen::VectorXd& lower, const Eigen::VectorXd& upper,
            const BoxLbfgsOptions& options, double lift) {
  LBFGSpp::LBFGSBParam<double> param;
  param.m = options.memory;
  param.epsilon = options.gradient_tolerance;
  param.epsilon_rel = 0;
  param.past = options.delta > 0 ? 1 : 0;
  param.delta = options.delta;
  param.max_iterations = options.max_iterations;
  LBFGSpp::LBFGSBSolver<double> solver(param);
  Fit fit;
  auto counted = [&](const Eigen::VectorXd& v, Eigen::VectorXd& g) {
    ++fit.evaluations;
    return f.Evaluate(v, g);
  };
  try {
    const Eigen::VectorXd lifted = (lower.array() + lift).matrix();
    fit.iterations = solver.minimize(counted, x, fit.objective, lifted, upper);
  } catch (const std::exception&) {
    fit.failed = true;
  }
  return fit;
}

void Report(benchmark::State& state, Objective& f, const Eigen::VectorXd& x, const Eigen::VectorXd& lower,
            const Eigen::VectorXd& upper, const Fit& fit) {
  Eigen::VectorXd g;
  const double value = f.Evaluate(x, g);
  state.counters["evaluations"] = fit.evaluations;
  state.counters["iterations"] = fit.iterations;
  state.counters["f"] = value;
  state.counters["kkt"] = ((x - g).cwiseMax(lower).cwiseMin(upper) - x).lpNorm<Eigen::Infinity>();
  state.counters["failed"] = fit.failed ? 1 : 0;
}

Fit Minimize(int solver, Objective& f, Eigen::VectorXd& x, const Eigen::VectorXd& lower, const Eigen::VectorXd& upper,
             const BoxLbfgsOptions& options) {
  if (solver == 0) return Ours(f, x, lower, upper, options);
  return Lbfgspp(f, x, lower, upper, options, solver == 2 ? 1e-12 : 0.0);
}

// The rows of `all`'s sentences n with (n % 5 == 0) == heldout.
HybridCorpus Fifth(const HybridCorpus& all, bool heldout) {
  HybridCorpus part;
  part.num_labels = all.num_labels;
  part.offsets.assign(1, 0);
  std::vector<Eigen::Index> rows;
  for (size_t n = 0; n < all.num_sentences(); ++n) {
    if ((n % 5 == 0) != heldout) continue;
    for (int64_t t = all.offsets[n]; t < all.offsets[n + 1]; ++t) rows.push_back(t);
    part.offsets.push_back(static_cast<int64_t>(rows.size()));
  }
  for (const RowMatrixXf& s : all.expert_scores) part.expert_scores.emplace_back(s(rows, Eigen::all));
  part.symbols = all.symbols(rows, Eigen::all);
  for (const Eigen::Index t : rows) part.labels.push_back(all.labels[static_cast<size_t>(t)]);
  return part;
}

struct GammaProblem {
  bench::HybridWorkload w;
  HybridCorpus heldout;
  GenerativeParams hmms, none;  // the HMMs' MAP on the other 4/5; no HMMs (the LOP)
};

const GammaProblem& Gamma(int signal) {
  static std::map<int, GammaProblem> problems;
  if (auto it = problems.find(signal); it != problems.end()) return it->second;
  GammaProblem& g = problems[signal];
  g.w = bench::MakeHybridWorkload(static_cast<float>(signal));
  g.heldout = Fifth(g.w.corpus, true);
  const GenerativeCounts train = ObservedCounts(Fifth(g.w.corpus, false), g.w.sizes);
  g.hmms = MaximizeGenerative(train, Eigen::VectorXd::Ones(static_cast<Eigen::Index>(g.w.sizes.size())), 1e-4);
  return g;
}

void BM_GammaFit(benchmark::State& state) {
  const GammaProblem& p = Gamma(static_cast<int>(state.range(1)));
  const bool hmms = state.range(2) == 1;
  CombinationObjective f(p.heldout, p.w.experts, hmms ? p.hmms : p.none, static_cast<double>(state.range(3)) / 1000, 1);
  const Eigen::Index models = bench::kHybridExperts + (hmms ? p.hmms.num_models() : 0);
  const Eigen::VectorXd lower = Eigen::VectorXd::Zero(models), upper = Eigen::VectorXd::Ones(models);
  BoxLbfgsOptions options;
  options.gradient_tolerance = 1e-4;
  options.delta = 1e-10;
  Eigen::VectorXd x;
  Fit fit;
  for (auto _ : state) {
    x = Eigen::VectorXd::Constant(models, 1.0 / static_cast<double>(models));
    fit = Minimize(static_cast<int>(state.range(0)), f, x, lower, upper, options);
  }
  Report(state, f, x, lower, upper, fit);
}
BENCHMARK(BM_GammaFit)
    ->ArgNames({"solver", "signal", "hmms", "xi"})
    ->ArgsProduct({{0, 1, 2}, {1, 3}, {0, 1}, {0, 100, 1000}})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

// f = ½ xᵀQx + cᵀx − ξ Σ log x.
class BarrierQuadratic final : public Objective {
 public:
  BarrierQuadratic(int n, double xi) : xi_(xi) {
    std::mt19937 rng(static_cast<unsigned>(n));
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    const Eigen::MatrixXd a = Eigen::MatrixXd::NullaryExpr(n, n, [&] { return u(rng); });
    q_ = a.transpose() * a + 0.01 * Eigen::MatrixXd::Identity(n, n);
    const Eigen::VectorXd minimiser = Eigen::VectorXd::NullaryExpr(n, [&] { return 0.5 + 1.5 * u(rng); });
    c_ = -q_ * minimiser;
  }
  double Evaluate(const Eigen::VectorXd& x, Eigen::VectorXd& g) override {
    g = q_ * x + c_;
    double value = 0.5 * x.dot(q_ * x) + c_.dot(x);
    if (xi_ > 0) {
      value -= xi_ * x.array().log().sum();
      g.array() -= xi_ / x.array();
    }
    return value;
  }

 private:
  Eigen::MatrixXd q_;  // [n x n] SPD
  Eigen::VectorXd c_;
  double xi_;
};

void BM_SyntheticBox(benchmark::State& state) {
  const int n = static_cast<int>(state.range(1));
  BarrierQuadratic f(n, static_cast<double>(state.range(2)) / 1000);
  const Eigen::VectorXd lower = Eigen::VectorXd::Zero(n), upper = Eigen::VectorXd::Ones(n);
  BoxLbfgsOptions options;
  options.gradient_tolerance = 1e-8;
  options.delta = 0;
  options.max_iterations = 10000;
  Eigen::VectorXd x;
  Fit fit;
  for (auto _ : state) {
    x = Eigen::VectorXd::Constant(n, 0.5);
    fit = Minimize(static_cast<int>(state.range(0)), f, x, lower, upper, options);
  }
  Report(state, f, x, lower, upper, fit);
}
BENCHMARK(BM_SyntheticBox)
    ->ArgNames({"solver", "n", "xi"})
    ->ArgsProduct({{0, 1, 2}, {22, 100}, {0, 10}})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace seqflow
BENCHMARK_MAIN();

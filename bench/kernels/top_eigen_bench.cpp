// μ_max, the largest eigenvalue of the homotopy's symmetric S = Gᵀ (Cov/|U|) G (jacobian.h):
// our Lanczos with full reorthogonalisation (nodes/numerics/lanczos.h) against Spectra 1.0's
// SymEigsSolver (implicitly restarted Lanczos on a matrix-free operator, Debian libspectra-dev),
// on the operators the path tracker builds, from the starts it uses (LanczosStart), at the same
// relative tolerance (both stop when the Ritz residual is <= tol |θ|). Workload:
// homotopy_bench_data.h (V = 1,000 is the size of the citation pipelines' P = 13 V).
//   solver: 0  ours (at most 100 products, as LinearSolveOptions);
//           n  Spectra with a Krylov space of n = 6, 10 or 20 vectors (ncv), restarted until
//              converged (it tests convergence only once the n vectors are built)
//   tol:    10^-tol (the pipelines' eig_tol is 1e-6, the node's default 1e-10)
// BM_TopEigen/op/solver/warm/V/tol: one μ_max at Θ̃ = 0.95 EM_0 + 0.05 EM_1(EM_0);
//   op 0: S v by tangent-linear forward-backward (the matrix-free back end); op 1: S v = Gᵀ C G v
//   with the dense C = Cov/|U| (the dense back end above P = 1,500). warm 0: the fixed start;
//   1: S's top eigenvector at Θ̃ = EM_0 (the previous point). Counters: products with S, μ_max
//   and its relative error against the dense symmetric eigensolver on S (V <= 200), else
//   Spectra at 1e-14. Median of 3 repetitions.
// BM_TopEigenAlongPath/solver/V/steps/tol: μ_max at each of the 31 accepted points of a real
//   30-step path, in order, each started from the previous point's Ritz vector as the tracker
//   does. Counters: products over the path, points not converged within the solver's limit, and
//   the largest relative error against our Lanczos at 1e-13 (300 products).
// Run: build/bench/kernels/top_eigen_bench
#include <Spectra/SymEigsSolver.h>
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "bench/kernels/homotopy_bench_data.h"
#include "nodes/homotopy/jacobian.h"
#include "nodes/homotopy/path_linear_algebra.h"
#include "nodes/homotopy/path_tracker.h"
#include "nodes/numerics/lanczos.h"

namespace seqflow {
namespace {

// LinearOperator in the shape Spectra's solvers take (rows, cols, perform_op on raw arrays).
class SpectraOperator {
 public:
  using Scalar = double;
  SpectraOperator(const LinearOperator& apply, Eigen::Index n) : apply_(apply), n_(n) {}
  Eigen::Index rows() const { return n_; }
  Eigen::Index cols() const { return n_; }
  void perform_op(const double* x, double* y) const {
    Eigen::Map<Eigen::VectorXd>(y, n_) = apply_(Eigen::Map<const Eigen::VectorXd>(x, n_));
  }

 private:
  const LinearOperator& apply_;
  Eigen::Index n_;
};

LanczosResult SpectraLargest(const LinearOperator& apply, const Eigen::VectorXd& start, int ncv, double tol) {
  SpectraOperator op(apply, start.size());
  Spectra::SymEigsSolver<SpectraOperator> eigs(op, 1, ncv);
  eigs.init(start.data());
  eigs.compute(Spectra::SortRule::LargestAlge, 1000, tol);
  LanczosResult r;
  r.converged = eigs.info() == Spectra::CompInfo::Successful;
  r.iterations = static_cast<int>(eigs.num_operations());
  if (r.converged) {
    r.value = eigs.eigenvalues()[0];
    r.vector = eigs.eigenvectors().col(0);
  }
  return r;
}

// S at the benchmark point and the warm start from the previous point, built once per (op, V).
struct EigenCase {
  std::unique_ptr<EmJacobian> jacobian;
  Eigen::MatrixXd c;  // [P x P] Cov/|U| (op 1 only)
  LinearOperator apply;
  Eigen::VectorXd warm;  // [P] S's top eigenvector at Θ̃ = EM_0
  double reference = 0;
};

const EigenCase& GetCase(int op, int V) {
  static std::map<std::pair<int, int>, EigenCase> cases;
  const auto key = std::make_pair(op, V);
  if (auto it = cases.find(key); it != cases.end()) return it->second;
  const bench::HomotopyWorkload& w = bench::GetHomotopyWorkload(V);
  const EmJacobian at_start(w.layout, w.supervised, w.em0, w.unlabeled, 1);
  const Eigen::VectorXd theta = 0.95 * w.em0 + 0.05 * at_start.em1();
  EigenCase& c = cases[key];
  c.jacobian = std::make_unique<EmJacobian>(w.layout, w.supervised, theta, w.unlabeled, 1);
  const EmJacobian& jac = *c.jacobian;
  const bool dense = op == 1 || V <= 200;
  if (dense) c.c = jac.covariance().Dense() / static_cast<double>(jac.covariance().num_sentences());
  if (op == 1) {
    c.apply = [&c, &jac](const Eigen::VectorXd& v) -> Eigen::VectorXd {
      return ApplyGt(jac.layout(), jac.theta_tilde(), c.c * ApplyG(jac.layout(), jac.theta_tilde(), v));
    };
  } else {
    c.apply = [&jac](const Eigen::VectorXd& v) { return jac.ApplySymmetric(v); };
  }
  const Eigen::Index P = theta.size();
  c.warm = SpectraLargest([&](const Eigen::VectorXd& v) { return at_start.ApplySymmetric(v); },
                          LanczosStart(P, Eigen::VectorXd()), 40, 1e-12)
               .vector;
  if (dense) {
    c.reference = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(SymmetrizeDense(jac.layout(), theta, c.c),
                                                                 Eigen::EigenvaluesOnly)
                      .eigenvalues()
                      .maxCoeff();
  } else {
    c.reference = SpectraLargest(c.apply, LanczosStart(P, Eigen::VectorXd()), 40, 1e-14).value;
  }
  if (op == 0) c.c.resize(0, 0);
  return c;
}

void BM_TopEigen(benchmark::State& state) {
  const int op = static_cast<int>(state.range(0));
  const int solver = static_cast<int>(state.range(1));
  const bool warm = state.range(2) == 1;
  const int V = static_cast<int>(state.range(3));
  const double tol = std::pow(10.0, -static_cast<double>(state.range(4)));
  const EigenCase& c = GetCase(op, V);
  const Eigen::VectorXd start = LanczosStart(c.warm.size(), warm ? c.warm : Eigen::VectorXd());
  LanczosResult r;
  for (auto _ : state) {
    r = solver == 0 ? LargestEigenpair(c.apply, start, {100, tol}) : SpectraLargest(c.apply, start, solver, tol);
    benchmark::DoNotOptimize(r.value);
  }
  if (!r.converged) state.SkipWithError("not converged");
  state.counters["P"] = static_cast<double>(c.warm.size());
  state.counters["products"] = r.iterations;
  state.counters["mu_max"] = r.value;
  state.counters["rel_err"] = std::abs(r.value - c.reference) / c.reference;
}

void Cases(benchmark::internal::Benchmark* b) {
  b->ArgNames({"op", "solver", "warm", "V", "tol"});
  for (const int tol : {6, 10}) {
    for (const int warm : {0, 1}) {
      for (const int solver : {0, 6, 10, 20}) {
        for (const int V : {100, 500, 1000, 5000}) b->Args({0, solver, warm, V, tol});
        b->Args({1, solver, warm, 200, tol});
      }
    }
  }
}
BENCHMARK(BM_TopEigen)->Apply(Cases)->Unit(benchmark::kMillisecond)->Repetitions(3)->ReportAggregatesOnly(true);

// The accepted points of a matrix-free path with the citation pipelines' settings (step 0.01,
// max_step 0.25, corrector_tol 1e-7, gmres_tol 1e-9), their S, and the reference μ_max of each
// (our Lanczos at 1e-13, 300 products).
struct PathCase {
  std::vector<std::unique_ptr<EmJacobian>> points;
  std::vector<double> reference;
};

const PathCase& GetPath(int V, int steps) {
  static std::map<std::pair<int, int>, PathCase> paths;
  const auto key = std::make_pair(V, steps);
  if (auto it = paths.find(key); it != paths.end()) return it->second;
  const bench::HomotopyWorkload& w = bench::GetHomotopyWorkload(V);
  PathOptions options;
  options.step = 0.01;
  options.max_step = 0.25;
  options.corrector_tol = 1e-7;
  options.linear.gmres.rel_tol = 1e-9;
  options.max_steps = steps;
  options.record_spectrum = false;
  const PathResult path = ValueOrThrow(TraceEmLambdaPath(w.layout, w.supervised, w.em0, w.unlabeled, options));
  PathCase& c = paths[key];
  Eigen::VectorXd warm;
  for (const PathPoint& point : path.points) {
    c.points.push_back(std::make_unique<EmJacobian>(w.layout, w.supervised, point.theta_tilde, w.unlabeled, 1));
    const EmJacobian& jac = *c.points.back();
    const LinearOperator apply = [&jac](const Eigen::VectorXd& v) { return jac.ApplySymmetric(v); };
    const LanczosResult r = LargestEigenpair(apply, LanczosStart(point.theta_tilde.size(), warm), {300, 1e-13});
    c.reference.push_back(r.value);
    warm = r.vector;
  }
  return c;
}

// μ_max at every point of the path in order, each started from the previous point's Ritz vector,
// as PathLinearization::Spectrum does; solver as BM_TopEigen, tol 10^-tol.
void BM_TopEigenAlongPath(benchmark::State& state) {
  const int solver = static_cast<int>(state.range(0));
  const PathCase& c = GetPath(static_cast<int>(state.range(1)), static_cast<int>(state.range(2)));
  const double tol = std::pow(10.0, -static_cast<double>(state.range(3)));
  int products = 0, unconverged = 0;
  double worst = 0;
  for (auto _ : state) {
    products = unconverged = 0;
    worst = 0;
    Eigen::VectorXd warm;
    for (size_t i = 0; i < c.points.size(); ++i) {
      const EmJacobian& jac = *c.points[i];
      const LinearOperator apply = [&jac](const Eigen::VectorXd& v) { return jac.ApplySymmetric(v); };
      const Eigen::VectorXd start = LanczosStart(jac.theta_tilde().size(), warm);
      const LanczosResult r =
          solver == 0 ? LargestEigenpair(apply, start, {100, tol}) : SpectraLargest(apply, start, solver, tol);
      products += r.iterations;
      unconverged += r.converged ? 0 : 1;
      worst = std::max(worst, std::abs(r.value - c.reference[i]) / c.reference[i]);
      warm = r.vector;
    }
  }
  state.counters["points"] = static_cast<double>(c.points.size());
  state.counters["products"] = products;
  state.counters["max_rel_err"] = worst;
  state.counters["unconverged"] = unconverged;
}
BENCHMARK(BM_TopEigenAlongPath)
    ->ArgNames({"solver", "V", "steps", "tol"})
    ->ArgsProduct({{0, 10, 20}, {1000}, {30}, {6, 10}})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace seqflow
BENCHMARK_MAIN();

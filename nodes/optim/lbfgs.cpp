#include "nodes/optim/lbfgs.h"

#include <cmath>
#include <deque>

#include "nodes/optim/blocked_sum.h"
#include "nodes/optim/correction_history.h"
#include "nodes/optim/line_search.h"

namespace seqflow {

const char* LbfgsStopName(LbfgsStop s) {
  switch (s) {
    case LbfgsStop::kConverged:
      return "converged";
    case LbfgsStop::kGradient:
      return "gradient";
    case LbfgsStop::kMaxIterations:
      return "max_iterations";
    case LbfgsStop::kLineSearchFailed:
      return "line_search_failed";
  }
  return "?";
}

namespace {

template <class Scalar>
Result<LbfgsResult> Run(Objective& f, Eigen::VectorXd& x, const LbfgsOptions& o, const LbfgsCallback& callback,
                        const CancelToken& cancel) {
  LbfgsResult r;
  Eigen::VectorXd g;
  typename CorrectionHistory<Scalar>::Vector d;
  double fx = f.Evaluate(x, g);
  r.evaluations = 1;
  r.objective = fx;
  if (!std::isfinite(fx) || !g.allFinite())
    return Status::Numerical("objective or gradient not finite at the start point");
  const int threads = o.threads;
  auto norm = [&](const Eigen::VectorXd& v) { return std::sqrt(ParallelSquaredNorm(v, threads)); };
  // ‖g‖ is taken once per iterate: the callback and the stopping test share it.
  double gradient_norm = norm(g);
  auto gradient_small = [&] { return gradient_norm / std::max(1.0, norm(x)) < o.gradient_tolerance; };
  if (gradient_small()) {
    r.stop = LbfgsStop::kGradient;
    return r;
  }
  CorrectionHistory<Scalar> history(x.size(), o.memory, threads);
  std::deque<double> recent{fx};  // f of the last `past` iterates, oldest first
  for (int k = 1; k <= o.max_iterations; ++k) {
    double slope = history.Direction(g, d);
    if (!(slope < 0)) {  // lost descent (round-off in the history): restart along -g
      history.Clear();
      slope = history.Direction(g, d);  // -g with an empty history
    }
    history.Begin(d);
    const double step0 = k == 1 ? 1.0 / gradient_norm : 1.0;
    const LineSearchResult ls = WolfeLineSearch(f, x, g, history.PendingDirection(), fx, slope, step0, o.wolfe_c1,
                                                o.wolfe_c2, o.max_line_search, threads);
    r.evaluations += ls.evaluations;
    if (!ls.finite)
      return Status::Numerical("objective or gradient became NaN/inf in the line search of iteration " +
                               std::to_string(k));
    const bool moved = ls.f < fx;
    if (moved) history.Complete(ls.step, g);
    fx = ls.f;
    r.objective = fx;
    r.iterations = k;
    if (!ls.ok && !moved) {
      r.stop = LbfgsStop::kLineSearchFailed;
      r.message = "no decrease along the search direction at iteration " + std::to_string(k);
      return r;
    }
    gradient_norm = norm(g);
    if (callback) callback({k, fx, gradient_norm, ls.step, r.evaluations});
    if (Status s = cancel.Check("L-BFGS"); !s.ok()) return s;
    if (gradient_small()) {
      r.stop = LbfgsStop::kGradient;
      return r;
    }
    recent.push_back(fx);
    if (static_cast<int>(recent.size()) > o.past) {
      const double old = recent.front();
      recent.pop_front();
      if ((old - fx) / std::max(std::abs(fx), 1e-300) < o.delta) {
        r.stop = LbfgsStop::kConverged;
        return r;
      }
    }
  }
  r.stop = LbfgsStop::kMaxIterations;
  return r;
}

}  // namespace

Result<LbfgsResult> MinimizeLbfgs(Objective& f, Eigen::VectorXd& x, const LbfgsOptions& options,
                                  const LbfgsCallback& callback, const CancelToken& cancel) {
  return options.float_history ? Run<float>(f, x, options, callback, cancel)
                               : Run<double>(f, x, options, callback, cancel);
}

}  // namespace seqflow

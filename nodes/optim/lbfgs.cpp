#include "nodes/optim/lbfgs.h"

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "engine/base/bytes.h"
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

constexpr uint64_t kStateMagic = 0x3253474642464c53;                 // "SLFBFGS2": x and the gradient at x
constexpr uint64_t kStateMagicWithoutGradient = 0x3153474642464c53;  // "SLFBFGS1": x alone (earlier builds)

// An iteration boundary of Run: with x and the history, what a checkpoint holds.
struct Iterate {
  Eigen::VectorXd g;
  double fx = 0;
  double gradient_norm = 0;
  int iteration = 0;
  int evaluations = 0;
  std::vector<double> objectives;  // f_0 .. f_iteration
};

// Where Run keeps what a checkpoint holds: x, the iterate and the history.
template <class Scalar>
struct SavedRun {
  Eigen::VectorXd& x;
  Iterate& it;
  CorrectionHistory<Scalar>& history;
  uint64_t magic = kStateMagic;  // read back: kStateMagicWithoutGradient for a state without g
};

// The gradient at x is kept beside it: a resume then costs no evaluation of the objective (one
// second-order CoNLL-2000 evaluation is 0.36 s of CPU, against 42 MB more per save; bench/RESULTS.md,
// "crf.train's restart without its checking gradient"). x and g are written from where they are
// and the completed pairs as immutable pieces (StatePieces): a save copies nothing large, and a
// pair still held at the next save is not written again. x, g and the pairs are read into place
// from where the source keeps them (a checkpoint's files), not through a copy of the state.
// REQUIRES on reading: x and it.g have the problem's size.
template <class Scalar>
StateTable<SavedRun<Scalar>> StateOf() {
  using R = SavedRun<Scalar>;
  return StateTable<R>("L-BFGS")
      .U64(&R::magic)
      .Check([](const R& r) { return r.magic == kStateMagic || r.magic == kStateMagicWithoutGradient; })
      .FitsU8(sizeof(Scalar))
      .I64([](auto& r) -> auto& { return r.it.iteration; })
      .I64([](auto& r) -> auto& { return r.it.evaluations; })
      .F64([](auto& r) -> auto& { return r.it.fx; })
      .F64([](auto& r) -> auto& { return r.it.gradient_norm; })
      .DoublesInPlace([](auto& r) -> auto& { return r.x; })
      .When([](const R& r) { return r.magic == kStateMagic; },
            StateTable<R>("L-BFGS").DoublesInPlace([](auto& r) -> auto& { return r.it.g; }))
      .Doubles([](auto& r) -> auto& { return r.it.objectives; })
      .Check([](const R& r) {
        return r.it.iteration >= 1 && r.it.objectives.size() == static_cast<size_t>(r.it.iteration) + 1;
      })
      .Custom([](const R& r, StatePieces& out) { r.history.Save(out); },
              [](R& r, StateIn& in) { return r.history.Load(in); });
}

template <class Scalar>
Result<LbfgsResult> Run(Objective& f, Eigen::VectorXd& x, const LbfgsOptions& o, const LbfgsCallback& callback,
                        const CancelToken& cancel, const LbfgsCheckpoints& checkpoints) {
  LbfgsResult r;
  Iterate it;
  typename CorrectionHistory<Scalar>::Vector d;
  const int threads = o.threads;
  auto norm = [&](const Eigen::VectorXd& v) { return std::sqrt(ParallelSquaredNorm(v, threads)); };
  CorrectionHistory<Scalar> history(x.size(), o.memory, threads);
  const StateTable<SavedRun<Scalar>> table = StateOf<Scalar>();
  auto ended = [&](LbfgsStop stop) {
    r.stop = stop;
    r.objective = it.fx;
    r.iterations = it.iteration;
    r.evaluations = it.evaluations;
    if (checkpoints.keep_final_state && it.iteration > 0 && stop != LbfgsStop::kLineSearchFailed)
      r.final_state = table.Encode({x, it, history}).Join();
    r.objectives = std::move(it.objectives);
    return r;
  };
  // ‖g‖ is taken once per iterate: the callback and the stopping test share it.
  auto gradient_small = [&] { return it.gradient_norm / std::max(1.0, norm(x)) < o.gradient_tolerance; };
  // The relative decrease over the `past` iterations up to iteration k.
  auto converged = [&](int k) {
    if (k < o.past) return false;
    const double old = it.objectives[static_cast<size_t>(k - o.past)], fk = it.objectives[static_cast<size_t>(k)];
    return (old - fk) / std::max(std::abs(fk), 1e-300) < o.delta;
  };
  if (checkpoints.resume_from != nullptr) {
    SavedRun<Scalar> saved{x, it, history};
    it.g.resize(x.size());
    SEQFLOW_RETURN_IF_ERROR(table.Decode(*checkpoints.resume_from, saved));
    const bool with_gradient = saved.magic == kStateMagic;
    r.resumed_at = it.iteration;
    // A state with its gradient is taken as saved (its bytes are checked by the store that kept
    // them, and the cache key names the objective); one without has it evaluated and compared.
    if (with_gradient ? norm(it.g) != it.gradient_norm : f.Evaluate(x, it.g) != it.fx || norm(it.g) != it.gradient_norm)
      return Status::Invalid("L-BFGS: the objective at the state to resume from is not the one it was saved with");
    // A run under these options that would have stopped before the state's iteration cannot
    // continue from it (the gradient test is not replayed: its ‖x‖ are not kept).
    bool stopped_before = it.iteration > o.max_iterations;
    for (int k = 1; k < it.iteration && !stopped_before; ++k) stopped_before = converged(k);
    if (stopped_before)
      return Status::Invalid("L-BFGS: the state to resume from (iteration " + std::to_string(it.iteration) +
                             ") is past where these options stop");
  } else {
    it.fx = f.Evaluate(x, it.g);
    it.evaluations = 1;
    it.objectives = {it.fx};
    if (!std::isfinite(it.fx) || !it.g.allFinite())
      return Status::Numerical("objective or gradient not finite at the start point");
    it.gradient_norm = norm(it.g);
    if (gradient_small()) return ended(LbfgsStop::kGradient);
  }
  // The stopping tests of the iteration a resumed state ended, under these options, come first.
  for (int k = it.iteration + 1;; ++k) {
    if (k > 1) {
      if (gradient_small()) return ended(LbfgsStop::kGradient);
      if (converged(k - 1)) return ended(LbfgsStop::kConverged);
    }
    if (k > o.max_iterations) return ended(LbfgsStop::kMaxIterations);
    double slope = history.Direction(it.g, d);
    if (!(slope < 0)) {  // lost descent (round-off in the history): restart along -g
      history.Clear();
      slope = history.Direction(it.g, d);  // -g with an empty history
    }
    history.Begin(d);
    const double step0 = k == 1 ? 1.0 / it.gradient_norm : 1.0;
    const LineSearchResult ls = WolfeLineSearch(f, x, it.g, history.PendingDirection(), it.fx, slope, step0,
                                                o.wolfe_c1, o.wolfe_c2, o.max_line_search, threads);
    it.evaluations += ls.evaluations;
    if (!ls.finite)
      return Status::Numerical("objective or gradient became NaN/inf in the line search of iteration " +
                               std::to_string(k));
    const bool moved = ls.f < it.fx;
    if (moved) history.Complete(ls.step, it.g);
    it.fx = ls.f;
    it.iteration = k;
    it.objectives.push_back(it.fx);
    if (!ls.ok && !moved) {
      r.message = "no decrease along the search direction at iteration " + std::to_string(k);
      return ended(LbfgsStop::kLineSearchFailed);
    }
    it.gradient_norm = norm(it.g);
    if (callback) callback({k, it.fx, it.gradient_norm, ls.step, it.evaluations});
    if (checkpoints.offer) checkpoints.offer([&] { return table.Encode({x, it, history}); });
    if (Status s = cancel.Check("L-BFGS"); !s.ok()) return s;
  }
}

}  // namespace

Result<LbfgsResult> MinimizeLbfgs(Objective& f, Eigen::VectorXd& x, const LbfgsOptions& options,
                                  const LbfgsCallback& callback, const CancelToken& cancel,
                                  const LbfgsCheckpoints& checkpoints) {
  return options.float_history ? Run<float>(f, x, options, callback, cancel, checkpoints)
                               : Run<double>(f, x, options, callback, cancel, checkpoints);
}

}  // namespace seqflow

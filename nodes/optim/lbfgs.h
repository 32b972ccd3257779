// Limited-memory BFGS (Nocedal 1980; Nocedal & Wright 2006, Alg. 7.4 two-loop recursion) with a
// line search satisfying the strong Wolfe conditions (Alg. 3.5/3.6, cubic interpolation).
//
// Stopping, as CRFsuite does: relative decrease of f over the last `past` iterations below
// `delta` ((f_{k-past} - f_k) / |f_k| < delta), or ‖g‖ / max(1, ‖x‖) < `gradient_tolerance`, or
// `max_iterations`. A non-finite f or gradient is a Status::Numerical error, never a result; a
// cancelled token (checked once per iteration) is Status::Cancelled.
//
// Memory: the 2m correction pairs dominate for large models (a dense CoNLL-2000 CRF has 7.4M
// parameters: m = 6 pairs in double precision would be 711 MB). `float_history` keeps them in
// single precision — the direction is an approximation of the inverse Hessian either way, and
// the line search is done in double — which halves that. Buffers besides the history: x, the
// gradient, and one trial point.
// Checkpoints (LbfgsCheckpoints): the state at an iteration boundary — x, the gradient, f, the
// correction history as stored, the objective of every iterate and the counters — is offered
// after every iteration and can be kept when the minimisation ends. Given back, it continues to
// the same bits as a run never interrupted: the stopping tests of its iteration are retaken first
// under the current options, so the state a run with a smaller budget (max_iterations, delta,
// gradient_tolerance) ended in continues to the result of a run with the larger one. Resuming
// evaluates nothing: the gradient at x is in the state (a state of an earlier build, without it,
// has it evaluated again and refused unless f and ‖g‖ are the saved ones).
// Thread safety: one call at a time per Objective.
#pragma once

#include <Eigen/Dense>
#include <functional>
#include <string>
#include <vector>

#include "engine/base/cancel.h"
#include "engine/base/state_pieces.h"
#include "engine/base/state_source.h"
#include "engine/base/status.h"
#include "nodes/optim/objective.h"

namespace seqflow {

struct LbfgsOptions {
  int memory = 4;  // m correction pairs (4: CoNLL-2000 in 190 iterations, under 500 MB)
  int max_iterations = 1000;
  double delta = 1e-5;  // relative objective decrease over `past` iterations
  int past = 10;
  double gradient_tolerance = 1e-5;
  int max_line_search = 40;  // evaluations per line search
  double wolfe_c1 = 1e-4;    // sufficient decrease
  double wolfe_c2 = 0.9;     // curvature (0.9 is the usual L-BFGS choice)
  bool float_history = true;
  int threads = 1;  // for the vector passes (results do not depend on it)
};

enum class LbfgsStop { kConverged, kGradient, kMaxIterations, kLineSearchFailed };
const char* LbfgsStopName(LbfgsStop s);  // "converged", "gradient", ...

struct LbfgsIteration {
  int iteration = 0;  // 1-based
  double objective = 0;
  double gradient_norm = 0;
  double step = 0;      // accepted step length along the search direction
  int evaluations = 0;  // cumulative Evaluate calls
};

struct LbfgsResult {
  LbfgsStop stop = LbfgsStop::kMaxIterations;
  double objective = 0;
  int iterations = 0;
  int evaluations = 0;
  std::string message;  // why it stopped, for the node's error or log
  std::vector<double> objectives;  // f of every iterate, the start point's first
  int resumed_at = 0;              // the iteration the state it resumed from ended (0: none)
  std::string final_state;         // when asked (LbfgsCheckpoints::keep_final_state)
};

struct LbfgsCheckpoints {
  // A state from `offer` or final_state: the minimisation continues from it and x is ignored
  // (overwritten by the state's, read into it from where the source keeps it; the source is
  // spent). Invalid when it does not fit (size, memory, precision); a piece the source cannot
  // read is its error.
  StateSource* resume_from = nullptr;
  // After every iteration: `encode` gives the state, its pieces viewing x and the history (valid
  // until `offer` returns; call it only to save). Its completed correction pairs are immutable
  // pieces, so a save writes each once (engine/base/state_pieces.h).
  std::function<void(const std::function<StatePieces()>& encode)> offer;
  // The state it stopped in, into LbfgsResult::final_state, when it stopped on a stopping test
  // (not a failed line search) after at least one iteration.
  bool keep_final_state = false;
};

// Called after every iteration (progress, traces).
using LbfgsCallback = std::function<void(const LbfgsIteration&)>;

// Minimises `f` from `x` (updated in place to the last accepted iterate).
// REQUIRES: options.memory >= 1, options.past >= 1.
Result<LbfgsResult> MinimizeLbfgs(Objective& f, Eigen::VectorXd& x, const LbfgsOptions& options,
                                  const LbfgsCallback& callback = nullptr, const CancelToken& cancel = {},
                                  const LbfgsCheckpoints& checkpoints = {});

}  // namespace seqflow

#include "nodes/common/portable_math.h"
#include "nodes/numerics/normal_flow.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace seqflow {
namespace {

using Node = NormalFlowNode;

// The cubic Hermite interpolant through (a.s, a.y, a.t) and (b.s, b.y, b.t), at s.
Eigen::VectorXd Hermite(const Node& a, const Node& b, double s) {
  const double h = b.s - a.s;
  const double u = (s - a.s) / h;
  const double u2 = u * u;
  const double u3 = u2 * u;
  return (2 * u3 - 3 * u2 + 1) * a.y + (u3 - 2 * u2 + u) * h * a.t + (3 * u2 - 2 * u3) * b.y + (u3 - u2) * h * b.t;
}

// The unit direction of that cubic at s: the predicted curve's tangent there.
Eigen::VectorXd HermiteDirection(const Node& a, const Node& b, double s) {
  const double h = b.s - a.s;
  const double u = (s - a.s) / h;
  const double u2 = u * u;
  return ((6 * u2 - 6 * u) / h * a.y + (3 * u2 - 4 * u + 1) * a.t + (6 * u - 6 * u2) / h * b.y + (3 * u2 - 2 * u) * b.t)
      .normalized();
}

// The s in [a.s, b.s] where the Hermite cubic's λ component equals `target`, by regula falsi
// with the Illinois modification (bisecting when it stalls), on the cubic alone.
// REQUIRES: λ(a) < target <= λ(b), or λ(a) > target >= λ(b).
double HermiteCrossing(const Node& a, const Node& b, double target) {
  const Eigen::Index n = a.y.size() - 1;
  const double sign = a.y[n] < target ? 1.0 : -1.0;
  auto f = [&](double s) { return sign * (Hermite(a, b, s)[n] - target); };
  double lo = a.s, hi = b.s, f_lo = sign * (a.y[n] - target), f_hi = sign * (b.y[n] - target);
  int side = 0;
  for (int it = 0; it < 100 && hi - lo > 1e-15 * std::max(1.0, std::abs(hi)); ++it) {
    double s = (lo * f_hi - hi * f_lo) / (f_hi - f_lo);
    if (!(s > lo && s < hi)) s = 0.5 * (lo + hi);
    const double fs = f(s);
    if (fs == 0) return s;
    if (fs < 0) {
      lo = s, f_lo = fs;
      if (side == -1) f_hi /= 2;
      side = -1;
    } else {
      hi = s, f_hi = fs;
      if (side == 1) f_lo /= 2;
      side = 1;
    }
  }
  return 0.5 * (lo + hi);
}

struct FlowCorrection {
  bool converged = false;
  int iterations = 0;
  Eigen::VectorXd y;
  Eigen::VectorXd t;  // at the last evaluated iterate
  int orientation = 0;  // sign det [Dρ; tᵀ] there
  double first = 0;   // ‖Δ_0‖
  double second = 0;  // ‖Δ_1‖ (0 after one iteration)
  double residual0 = 0;  // ‖ρ(Z_0)‖ at the prediction
  double residual1 = 0;  // ‖ρ(Z_1)‖ after one Newton step (0 after one iteration)
  Eigen::VectorXd z1;    // the first corrected iterate Z_1
};

class FlowTracker {
 public:
  FlowTracker(const HomotopyMap& map, const NormalFlowOptions& options, Eigen::Index n) : map_(map), options_(options), n_(n) {}

  int evaluations() const { return evaluations_; }
  void set_evaluations(int evaluations) { evaluations_ = evaluations; }

  Result<Node> Start(const Eigen::VectorXd& y0) {
    SEQFLOW_ASSIGN_OR_RETURN(CurveEvaluation e, Evaluate(y0));
    if (e.outside_domain) return Status::Invalid("normal flow: the start point is outside the map's domain");
    const Eigen::VectorXd t = e.linearization->Tangent(Eigen::VectorXd::Unit(n_ + 1, n_));
    if (!t.allFinite()) return Status::Numerical("normal flow: no tangent at the start point");
    return Node{0.0, y0, t, e.linearization->OrientationSign(t), true};
  }

  // `node` with its tangent evaluated at its own point, oriented along the kept one.
  Result<Node> WithExactTangent(const Node& node) {
    SEQFLOW_ASSIGN_OR_RETURN(CurveEvaluation e, Evaluate(node.y));
    if (e.outside_domain) return Status::Numerical("normal flow: a tracked point is outside the map's domain");
    const Eigen::VectorXd t = e.linearization->Tangent(node.t);
    if (!t.allFinite()) return Status::Numerical("normal flow: no tangent at a tracked point");
    return Node{node.s, node.y, t, e.linearization->OrientationSign(t), true};
  }

  // Newton with the minimum-norm step from w; `fixed_lambda` holds λ instead (constraint e_λ);
  // with options.pseudo_arclength the row is `row` (the predicted tangent at w).
  Result<FlowCorrection> Correct(const Eigen::VectorXd& w, const Eigen::VectorXd& orient, double rel, double abs,
                             int max_iterations, bool fixed_lambda = false,
                             const Eigen::VectorXd& row_direction = Eigen::VectorXd()) {
    FlowCorrection c;
    c.y = w;
    double previous = std::numeric_limits<double>::infinity();
    // With a fixed Newton row (λ held, or the pseudo-arclength row `orient`) the tangent is
    // needed only at the last iterate, to step on from.
    const bool row_is_tangent = !fixed_lambda && !options_.pseudo_arclength;
    const bool chord = !fixed_lambda && options_.pseudo_arclength && options_.chord;
    std::unique_ptr<CurveLinearization> first;  // chord: the first iterate's Jacobian, for every step
    // The pseudo-arclength row is also the tangent's closest start (a Krylov back end's first
    // guess): the predicted direction is nearer the new tangent than t_k is.
    const Eigen::VectorXd& tangent_start = row_is_tangent || fixed_lambda ? orient : row_direction;
    auto take_tangent = [&](const CurveLinearization& lin) {
      c.t = lin.Tangent(tangent_start);
      c.orientation = lin.OrientationSign(c.t);
    };
    while (c.iterations < max_iterations) {
      SEQFLOW_ASSIGN_OR_RETURN(CurveEvaluation e, Evaluate(c.y));
      ++c.iterations;
      if (e.outside_domain) return c;
      if (row_is_tangent) take_tangent(*e.linearization);
      const Eigen::VectorXd row =
          fixed_lambda ? Eigen::VectorXd::Unit(n_ + 1, n_) : (row_is_tangent ? c.t : row_direction);
      const CurveLinearization& newton = first ? *first : *e.linearization;
      const Eigen::VectorXd delta = newton.SolveAugmented(row, -e.rho, 0.0);
      if (!delta.allFinite() || (row_is_tangent && !c.t.allFinite())) return c;
      const double norm = delta.norm();
      if (c.iterations == 1) c.first = norm, c.residual0 = e.rho.norm();
      if (c.iterations == 2) c.second = norm, c.residual1 = e.rho.norm();
      c.y += delta;
      if (c.iterations == 1) c.z1 = c.y;
      const double tol = rel * c.y.norm() + abs;
      // The step after this one would be about θ ‖Δ‖ / (1 − θ), θ = ‖Δ‖ / ‖Δ_prev‖ (Deuflhard's
      // a-posteriori estimate; linear convergence, as inexact Newton's): when that is within the
      // tolerance the iterate is accepted without the evaluation and solve that would confirm it.
      const bool predicted = options_.predicted_stop && !fixed_lambda && c.iterations >= 2 && norm < previous &&
                             norm * norm / (previous - norm) <= tol;
      if (norm <= tol || predicted) {
        if (!row_is_tangent) {
          take_tangent(*e.linearization);
          if (!c.t.allFinite()) return c;
        }
        c.converged = true;
        return c;
      }
      // Newton that does not contract is heading away from the curve.
      if (norm >= previous) return c;
      previous = norm;
      if (chord && !first) first = std::move(e.linearization);
    }
    return c;
  }

  // HOMPACK's step-size law from the corrector's contraction, residual and distance.
  double NextStep(const FlowCorrection& c, const Eigen::VectorXd& predicted, double h, double min_step) const {
    double ratio = std::numeric_limits<double>::infinity();
    auto consider = [&](double ideal, double measured) {
      if (measured > 0) ratio = std::min(ratio, ideal / measured);
    };
    if (c.iterations >= 2) {
      consider(options_.ideal_contraction, c.second / c.first);
      consider(options_.ideal_residual, c.residual1 / c.residual0);
    }
    const double predicted_distance = (predicted - c.y).norm();
    if (predicted_distance > 0) consider(options_.ideal_distance, (c.z1 - c.y).norm() / predicted_distance);
    const double ideal = std::isinf(ratio) ? options_.max_step_ratio * h : h * Exp(Log(ratio) / options_.order);
    const double lower = std::max(options_.min_step_ratio * h, min_step);
    return std::min({std::max(ideal, lower), options_.max_step_ratio * h, options_.max_step});
  }

 private:
  Result<CurveEvaluation> Evaluate(const Eigen::VectorXd& y) {
    ++evaluations_;
    SEQFLOW_ASSIGN_OR_RETURN(CurveEvaluation e, map_(y));
    if (e.outside_domain) return e;
    if (e.rho.size() != n_ || !e.linearization) return Status::Internal("normal flow: map returned the wrong size");
    if (!e.rho.allFinite()) return Status::Numerical("normal flow: the map is not finite at a point of the path");
    return e;
  }

  const HomotopyMap& map_;
  const NormalFlowOptions& options_;
  Eigen::Index n_;
  int evaluations_ = 0;
};

// ROOTNF's end game, from the bracket a (λ < end) and b (λ >= end): the Hermite cubic's crossing
// of λ = end predicts the end point, and Newton at λ = end fixed corrects it. The bracket's points
// lie within the arc tolerance of the curve, but a long bracket's cubic can be far from a curve
// that bends between them (at fixed λ, as far as the curve is flat in λ): when Newton does not
// converge there, nothing is returned and the tracker steps again from a, shorter.
Result<std::optional<Node>> EndGame(FlowTracker& tracker, const Node& a, const Node& b, const NormalFlowOptions& o) {
  const Eigen::Index n = a.y.size() - 1;
  const double s = HermiteCrossing(a, b, o.lambda_end);
  Eigen::VectorXd start = Hermite(a, b, s);
  start[n] = o.lambda_end;
  SEQFLOW_ASSIGN_OR_RETURN(FlowCorrection c, tracker.Correct(start, a.t, o.final_rel_tol, o.final_abs_tol,
                                                         o.end_game_iterations, /*fixed_lambda=*/true));
  if (!c.converged) return std::optional<Node>();
  return std::optional<Node>(Node{s + (c.y - start).norm(), c.y, c.t});
}

}  // namespace

Result<Eigen::VectorXd> CorrectAtFixedLambda(const HomotopyMap& map, const Eigen::VectorXd& y0, double rel_tol,
                                             double abs_tol, int max_iterations, int* evaluations) {
  const NormalFlowOptions options;
  const Eigen::Index n = y0.size() - 1;
  FlowTracker tracker(map, options, n);
  const Eigen::VectorXd orient = Eigen::VectorXd::Unit(n + 1, n);
  Result<FlowCorrection> c = tracker.Correct(y0, orient, rel_tol, abs_tol, max_iterations, /*fixed_lambda=*/true);
  if (evaluations != nullptr) *evaluations += tracker.evaluations();
  if (!c.ok()) return c.status();
  if (!c->converged) return Status::Numerical("normal flow: Newton at fixed λ did not converge");
  return c->y;
}

Result<Eigen::VectorXd> CorrectAtLambdaBetween(const HomotopyMap& map, const Eigen::VectorXd& a, const Eigen::VectorXd& b,
                                               double lambda, const NormalFlowOptions& options, int max_shortenings,
                                               int* evaluations) {
  const Eigen::Index n = a.size() - 1;
  FlowTracker tracker(map, options, n);
  auto counted = [&](Result<Eigen::VectorXd> r) {
    if (evaluations != nullptr) *evaluations += tracker.evaluations();
    return r;
  };
  // Newton at fixed λ from the Hermite cubic's crossing between lo and hi; nullopt when it fails.
  auto land = [&](const Node& lo, const Node& hi) -> Result<std::optional<Eigen::VectorXd>> {
    const double s = HermiteCrossing(lo, hi, lambda);
    Eigen::VectorXd start = Hermite(lo, hi, s);
    start[n] = lambda;
    SEQFLOW_ASSIGN_OR_RETURN(FlowCorrection c, tracker.Correct(start, lo.t, options.final_rel_tol, options.final_abs_tol,
                                                           options.end_game_iterations, /*fixed_lambda=*/true));
    if (!c.converged) return std::optional<Eigen::VectorXd>();
    return std::optional<Eigen::VectorXd>(std::move(c.y));
  };
  // Tangents taken at the points themselves, oriented along the chord a → b.
  const Eigen::VectorXd chord = b - a;
  Result<Node> start = tracker.WithExactTangent(Node{0.0, a, chord});
  if (!start.ok()) return counted(start.status());
  Result<Node> end = tracker.WithExactTangent(Node{chord.norm(), b, chord});
  if (!end.ok()) return counted(end.status());
  Result<std::optional<Eigen::VectorXd>> direct = land(*start, *end);
  if (!direct.ok()) return counted(direct.status());
  if (*direct) return counted(std::move(**direct));
  // Step from a along the curve (tangent predictor, normal-flow corrector), each failure halving
  // the step, until a step's ends bracket λ closely enough for Newton.
  Node lo = std::move(*start);
  double h = 0.5 * chord.norm();
  for (int shortenings = 0, steps = 0; shortenings < max_shortenings && steps < options.max_steps;) {
    Result<FlowCorrection> c = tracker.Correct(lo.y + h * lo.t, lo.t, options.arc_rel_tol, options.arc_abs_tol,
                                           options.corrector_iterations);
    if (!c.ok()) return counted(c.status());
    if (!c->converged || c->t.dot(lo.t) < options.min_tangent_cosine) {
      h /= 2, ++shortenings;
      continue;
    }
    Node m{lo.s + (c->y - lo.y).norm(), c->y, c->t};
    if ((lo.y[n] - lambda) * (m.y[n] - lambda) > 0) {
      lo = std::move(m), ++steps;
      continue;
    }
    Result<std::optional<Eigen::VectorXd>> landed = land(lo, m);
    if (!landed.ok()) return counted(landed.status());
    if (*landed) return counted(std::move(**landed));
    h /= 2, ++shortenings;
  }
  return counted(Status::Numerical("normal flow: Newton at fixed λ did not converge between the bracket's points"));
}

const char* NormalFlowStopName(NormalFlowStop stop) {
  switch (stop) {
    case NormalFlowStop::kReachedEnd: return "reached_end";
    case NormalFlowStop::kMaxSteps: return "max_steps";
    case NormalFlowStop::kStepTooSmall: return "step_too_small";
    case NormalFlowStop::kStopped: return "stopped";
  }
  return "?";
}

Result<NormalFlowResult> TrackNormalFlow(const HomotopyMap& map, const Eigen::VectorXd& y0,
                                         const NormalFlowOptions& options, const NormalFlowCallbacks& callbacks,
                                         const NormalFlowState* resume) {
  const Eigen::Index n = y0.size() - 1;
  const double min_step = options.min_step > 0 ? options.min_step
                                               : (std::sqrt(static_cast<double>(n + 1)) + 4) *
                                                     std::numeric_limits<double>::epsilon();
  FlowTracker tracker(map, options, n);
  NormalFlowResult result;
  auto record = [&](const Node& node, double step, int iterations) -> Status {
    result.points.push_back(NormalFlowPoint{node.s, node.y, node.t, step, iterations});
    if (callbacks.progress) callbacks.progress(result.points.back());
    return callbacks.cancel.Check("normal-flow path");
  };
  Node current;
  Node previous;
  bool have_previous = false;
  double h = options.first_step;
  if (resume != nullptr) {
    if (resume->current.y.size() != n + 1 || (resume->have_previous && resume->previous.y.size() != n + 1))
      return Status::Invalid("normal flow: the state to resume from has another dimension");
    current = resume->current;
    previous = resume->previous;
    have_previous = resume->have_previous;
    h = resume->step;
    result.steps = resume->steps;
    tracker.set_evaluations(resume->evaluations);
  } else {
    SEQFLOW_ASSIGN_OR_RETURN(current, tracker.Start(y0));
    SEQFLOW_RETURN_IF_ERROR(record(current, 0, 0));
  }
  while (true) {
    if (result.steps >= options.max_steps) {
      result.stop = NormalFlowStop::kMaxSteps;
      break;
    }
    const Eigen::VectorXd predicted =
        have_previous ? Hermite(previous, current, current.s + h) : Eigen::VectorXd(current.y + h * current.t);
    // The pseudo-arclength row: the predictor's direction at the prediction, so the hyperplane
    // of the corrected points crosses the curve there at right angles even past a sharp turn.
    const Eigen::VectorXd direction = have_previous ? HermiteDirection(previous, current, current.s + h) : current.t;
    SEQFLOW_ASSIGN_OR_RETURN(FlowCorrection c,
                             tracker.Correct(predicted, current.t, options.arc_rel_tol, options.arc_abs_tol,
                                             options.corrector_iterations, /*fixed_lambda=*/false, direction));
    // Allgower & Georg's angle test: tangents more than acos(min_tangent_cosine) apart mean the
    // corrector has landed on another stretch of the zero set (a branch jump), not a turn.
    // And the orientation test: det [Dρ; tᵀ] keeps its sign along the curve, so a flip means the
    // corrector landed on a stretch that runs the other way (across a hairpin).
    const bool reversed = c.orientation != 0 && current.orientation != 0 && c.orientation != current.orientation;
    const bool turned = c.converged && c.t.dot(current.t) < options.min_tangent_cosine;
    if (turned && !current.exact_tangent) {
      // The kept tangent was taken one Newton step off the curve; near a sharp turn it can be far
      // from the tangent at the point itself, and then every step, however short, fails the angle
      // test. (The orientation is not refreshed so: near a nearly singular point its sign off the
      // curve is unreliable, and a refreshed sign let the corrector jump onto the start's stretch.)
      SEQFLOW_ASSIGN_OR_RETURN(current, tracker.WithExactTangent(current));
      continue;
    }
    if (!c.converged || turned || reversed) {
      h /= 2;
      if (h < min_step) {
        result.stop = NormalFlowStop::kStepTooSmall;
        break;
      }
      continue;
    }
    Node next{current.s + (c.y - current.y).norm(), c.y, c.t, c.orientation};
    const double taken = h;
    h = tracker.NextStep(c, predicted, h, min_step);
    if (next.y[n] >= options.lambda_end) {
      const int before = tracker.evaluations();
      SEQFLOW_ASSIGN_OR_RETURN(std::optional<Node> last, EndGame(tracker, current, next, options));
      result.end_game_evaluations += tracker.evaluations() - before;
      if (!last) {
        // The bracket was too long for Newton at λ = end: the step is retried shorter from the
        // current point, as a failed correction is (HOMPACK's ROOTNF reduces its step so).
        h = taken / 2;
        if (h < min_step) {
          result.stop = NormalFlowStop::kStepTooSmall;
          break;
        }
        continue;
      }
      ++result.steps;
      SEQFLOW_RETURN_IF_ERROR(record(*last, taken, c.iterations));
      result.stop = NormalFlowStop::kReachedEnd;
      break;
    }
    ++result.steps;
    previous = std::move(current);
    current = std::move(next);
    have_previous = true;
    SEQFLOW_RETURN_IF_ERROR(record(current, taken, c.iterations));
    if (callbacks.stop && callbacks.stop(result.points.back())) {
      result.stop = NormalFlowStop::kStopped;
      break;
    }
    if (callbacks.checkpoint)
      callbacks.checkpoint(NormalFlowState{previous, current, have_previous, h, result.steps, tracker.evaluations()});
  }
  result.evaluations = tracker.evaluations();
  return result;
}

namespace {

StateTable<NormalFlowNode> NodeTable() {
  return StateTable<NormalFlowNode>("normal-flow state")
      .F64(&NormalFlowNode::s)
      .Doubles(&NormalFlowNode::y)
      .Doubles(&NormalFlowNode::t)
      .I64(&NormalFlowNode::orientation)
      .U8(&NormalFlowNode::exact_tangent)
      .Check([](const NormalFlowNode& node) { return node.t.size() == node.y.size(); });
}

}  // namespace

StateTable<NormalFlowState> NormalFlowStateTable() {
  return StateTable<NormalFlowState>("normal-flow state")
      .Struct(&NormalFlowState::previous, NodeTable())
      .Struct(&NormalFlowState::current, NodeTable())
      .U8(&NormalFlowState::have_previous)
      .F64(&NormalFlowState::step)
      .I64(&NormalFlowState::steps)
      .I64(&NormalFlowState::evaluations);
}

StateTable<NormalFlowPoint> NormalFlowPointTable() {
  return StateTable<NormalFlowPoint>("normal-flow point")
      .F64(&NormalFlowPoint::s)
      .Doubles(&NormalFlowPoint::y)
      .Doubles(&NormalFlowPoint::tangent)
      .F64(&NormalFlowPoint::step)
      .I64(&NormalFlowPoint::corrector_iterations)
      .Check([](const NormalFlowPoint& point) { return point.tangent.size() == point.y.size(); });
}

void EncodeNormalFlowState(const NormalFlowState& state, ByteWriter& out) {
  out.Bytes(NormalFlowStateTable().Encode(state).Join());
}

NormalFlowState DecodeNormalFlowState(ByteReader& in) {
  NormalFlowState state;
  StateInFrom<ByteReader> from(in);
  if (!NormalFlowStateTable().Read(from, state)) throw StatusError(Status::Corruption("not a normal-flow state"));
  return state;
}

}  // namespace seqflow

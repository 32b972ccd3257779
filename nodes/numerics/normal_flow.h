// Normal-flow tracking of the zero curve of a homotopy ρ: R^(n+1) → R^n, y = (x, λ) with λ last,
// from a zero y_0 at λ = 0 to λ = 1, by arc length s, in the manner of HOMPACK90's FIXPNF /
// STEPNF / ROOTNF (Watson et al., ACM TOMS 23(4), 1997, Algorithm 777). One tracker for every
// map: fixed-point homotopies, polynomial systems, Ji–Watson–Carin's EM map.
//
// A step from the current point (s_k, y_k, t_k), t_k the unit tangent:
//   1. predictor: the tangent line y_k + h t_k on the first step, afterwards the Hermite cubic
//      through (s_k-1, y_k-1, t_k-1) and (s_k, y_k, t_k) evaluated at s_k + h;
//   2. corrector: Newton with the minimum-norm step Δ = −Dρ(z)⁺ ρ(z) of the [n x (n+1)]
//      Jacobian (curve_linearization.h), at most `corrector_iterations` (HOMPACK's LITFH = 4)
//      iterations, converged when ‖Δ‖ <= arc_rel_tol ‖z‖ + arc_abs_tol; a corrector that fails
//      (no convergence, a growing step, a non-finite Δ, an iterate outside the map's domain)
//      halves h and retries, giving up below
//      min_step (option `predicted_stop`: also converged when the next step is predicted within
//      the tolerance). (Options: `pseudo_arclength` fixes the Newton row to the predictor's direction
//      at the prediction (the Hermite cubic's derivative; t_k on the first step), so the corrected
//      point is the curve's on the hyperplane through the prediction normal to it, and the tangent
//      is solved once, at the last iterate, from that direction; `chord` then solves every step with the first iterate's
//      Jacobian — the same point, reached linearly — which a recycling Krylov back end turns into
//      cheap later solves.) The new tangent is the one at the last iterate (already factored: no
//      extra Jacobian), oriented by t · t_k > 0; a step whose tangent turned by more than
//      acos(min_tangent_cosine) is also retried shorter (the angle test of Allgower & Georg:
//      the corrector jumped to another stretch of the zero set) — but first, once per point, with
//      the tangent re-evaluated at the point itself, since near a sharp turn the kept tangent
//      (one Newton step off the curve) can fail the test for every step length — and so is one where
//      sign det [Dρ; tᵀ] changed (the orientation test: that sign is constant along a regular
//      curve, folds included, so a change means a jump onto a stretch running the other way,
//      across a hairpin narrower than the step); s advances by the chord ‖y_k+1 − y_k‖;
//   3. step control from the corrector's behaviour (HOMPACK's SSPAR), with Z_0 = W the prediction,
//      Z_1, Z_2 the first two Newton iterates and Z* the converged point: the contraction
//      L = ‖Z_2 − Z_1‖/‖Z_1 − Z_0‖, the residual R = ‖ρ(Z_1)‖/‖ρ(Z_0)‖ and the distance
//      D = ‖Z_1 − Z*‖/‖Z_0 − Z*‖, all dimensionless as HOMPACK's ideals assume, are compared with
//      their ideal values (LIDEAL 0.5, RIDEAL 0.01, DIDEAL 0.5); the next
//        h̄ = h · min(LIDEAL/L, RIDEAL/R, DIDEAL/D)^(1/order)
//      (L and R need two iterations; a measure of zero is left out)
//      is clamped to [max(BMIN h, HMIN), min(BMAX h, HMAX)] (BMIN 0.1, BMAX 3, HMAX 1).
//   4. end game (ROOTNF): once a corrected point has λ >= lambda_end, the root of λ(s) − 1 is
//      bracketed by the last two points; the Hermite cubic between the bracket's ends gives its
//      λ = 1 crossing (regula falsi with bisection safeguard on the cubic, no evaluations), and
//      Newton at λ = 1 fixed (constraint row e_λ) from there lands the last point exactly on
//      λ = 1 with ‖Δx‖ <= final_rel_tol ‖x‖ + final_abs_tol. When that Newton does not converge
//      (a long bracket's cubic far from a curve that bends between its ends), the crossing step is
//      rejected and retried from the point before it with half its length, as a failed
//      correction is (HOMPACK's ROOTNF likewise shortens its step).
// Every evaluation of the map (value and Jacobian together, as HOMPACK's NFE counts them) is
// counted.
//
// Pure function: no I/O; the map may use threads. Progress through a callback after each
// accepted point; a cancelled token gives Status::Cancelled, checked after each point. After
// each accepted point the track continues from, its state (NormalFlowState) is offered to the
// `checkpoint` callback; a track started from such a state continues to the same bits as one
// never interrupted (the returned points are then those after the state's). A map
// that fails returns its Status; a tracker that cannot continue (step below min_step, step
// limit) stops with the points so far and says why.
// REQUIRES: y0 of size n + 1 with ρ(y0) ≈ 0 and λ = y0[n] < lambda_end; every option > 0.
#pragma once

#include <Eigen/Dense>
#include <functional>
#include <memory>
#include <vector>

#include "engine/base/bytes.h"
#include "engine/base/cancel.h"
#include "engine/base/status.h"
#include "nodes/common/state_table.h"
#include "nodes/numerics/curve_linearization.h"

namespace seqflow {

// ρ(y) [n] and the linearisation of ρ at y. A map defined on part of R^(n+1) only (probabilities
// that must stay positive) sets outside_domain instead: the corrector counts it as a failed
// correction, so the step that left the domain is halved and retried.
struct CurveEvaluation {
  Eigen::VectorXd rho;
  std::unique_ptr<CurveLinearization> linearization;
  bool outside_domain = false;
};

using HomotopyMap = std::function<Result<CurveEvaluation>(const Eigen::VectorXd& y)>;

struct NormalFlowOptions {
  double arc_rel_tol = 5e-5;  // ARCRE: corrector tolerance while tracking
  double arc_abs_tol = 5e-5;  // ARCAE
  double final_rel_tol = 1e-10;  // ANSRE: at λ = 1
  double final_abs_tol = 1e-10;  // ANSAE
  double ideal_contraction = 0.5;  // LIDEAL
  double ideal_residual = 0.01;    // RIDEAL
  double ideal_distance = 0.5;     // DIDEAL
  double min_step = 0;             // HMIN; 0: (sqrt(n + 1) + 4) ε_machine, HOMPACK's default
  double max_step = 1.0;           // HMAX
  double min_step_ratio = 0.1;     // BMIN
  double max_step_ratio = 3.0;     // BMAX
  double order = 2.0;              // P, the exponent 1/P of the step-size law
  double first_step = 0.1;         // h on the first step
  int corrector_iterations = 4;    // LITFH
  // Newton rows: false, HOMPACK's normal flow (the tangent at each iterate: the minimum-norm
  // step, one tangent solve per iteration); true, the pseudo-arclength corrector (Keller): the
  // row is the predictor's direction at the prediction, fixed for the step, so the corrected
  // point lies on the hyperplane through the prediction normal to it and the tangent is solved
  // once, at the last iterate.
  bool pseudo_arclength = false;
  // With pseudo_arclength: every Newton step of a correction solves with the Jacobian of its first
  // iterate (the chord method; the same corrected point, reached linearly), so a Krylov back end
  // that recycles (curve_linearization.h) starts each later step from the earlier ones' directions.
  bool chord = false;
  // While tracking (not at fixed λ): a correction also converges once the next Newton step is
  // predicted within the tolerance from the last two (‖Δ_k‖² / (‖Δ_k−1‖ − ‖Δ_k‖), Deuflhard's
  // estimate), saving the evaluation and solve that would only confirm it (usually the third of
  // three). The points then lie ~‖Δ_k‖ θ_k off the curve instead of ~‖Δ_k+1‖ θ_k+1.
  bool predicted_stop = false;
  double min_tangent_cosine = 0.5;  // a step whose tangent turns further (t_k+1 · t_k below) is retried shorter
  int end_game_iterations = 40;    // root-finding steps on λ(s) − 1, and Newton steps at λ = 1
  int max_steps = 1000;            // LIMITD
  double lambda_end = 1.0;
};

struct NormalFlowPoint {
  double s = 0;           // arc length (sum of chords)
  Eigen::VectorXd y;      // (x, λ)
  Eigen::VectorXd tangent;  // unit, at (or one Newton step from) y
  double step = 0;        // h of the step that reached this point (0 at the start)
  int corrector_iterations = 0;
};

// A point as the tracker steps from it: its tangent may have been re-evaluated at the point
// (exact_tangent) after it was recorded.
struct NormalFlowNode {
  double s = 0;
  Eigen::VectorXd y;
  Eigen::VectorXd t;
  int orientation = 0;  // sign det [Dρ; tᵀ]; 0 unknown
  bool exact_tangent = false;  // t taken at y itself (not at the corrector's last iterate)
};

// Everything the next step depends on, after an accepted point.
struct NormalFlowState {
  NormalFlowNode previous;  // the point before `current`, when have_previous
  NormalFlowNode current;
  bool have_previous = false;
  double step = 0;  // h of the next step
  int steps = 0;
  int evaluations = 0;
};

// kStopped: the caller's `stop` predicate ended the track.
enum class NormalFlowStop { kReachedEnd, kMaxSteps, kStepTooSmall, kStopped };

struct NormalFlowResult {
  std::vector<NormalFlowPoint> points;  // the last is on λ = lambda_end when kReachedEnd
  NormalFlowStop stop = NormalFlowStop::kReachedEnd;
  int evaluations = 0;  // map evaluations (each gives ρ and Dρ): HOMPACK's NFE
  int steps = 0;        // accepted tracking steps, end game excluded
  int end_game_evaluations = 0;
};

struct NormalFlowCallbacks {
  std::function<void(const NormalFlowPoint&)> progress;  // optional
  CancelToken cancel;
  // Optional, asked after each accepted point (after `progress`): true ends the track there with
  // kStopped, that point the last (e.g. a curve leaving the interval of interest).
  std::function<bool(const NormalFlowPoint&)> stop;
  // Optional, after each accepted point the track goes on from (after `stop`).
  std::function<void(const NormalFlowState&)> checkpoint;
};

// `resume`: a state offered by a track of the same map from the same y0 with the same options.
Result<NormalFlowResult> TrackNormalFlow(const HomotopyMap& map, const Eigen::VectorXd& y0,
                                         const NormalFlowOptions& options, const NormalFlowCallbacks& callbacks = {},
                                         const NormalFlowState* resume = nullptr);

// The fields of a state and of a point (nodes/common/state_table.h), for the checkpoints of the
// kernels that track a curve; a state or point read back has its tangent's size checked.
StateTable<NormalFlowState> NormalFlowStateTable();
StateTable<NormalFlowPoint> NormalFlowPointTable();
// The state's bytes and back, on their own; Decode throws StatusError(Corruption) on bytes that are
// not a state.
void EncodeNormalFlowState(const NormalFlowState& state, ByteWriter& out);
NormalFlowState DecodeNormalFlowState(ByteReader& in);

// The point of the zero curve at λ = y0[n] reached by Newton at fixed λ from y0 (the end game's
// last phase, for picking a path's point at a given λ). Numerical when Newton does not converge to
// ‖Δx‖ <= rel_tol ‖y‖ + abs_tol within max_iterations. `evaluations` (optional) counts map calls.
Result<Eigen::VectorXd> CorrectAtFixedLambda(const HomotopyMap& map, const Eigen::VectorXd& y0, double rel_tol,
                                             double abs_tol, int max_iterations, int* evaluations = nullptr);

// The point of the zero curve at `lambda` between two of its points a and b whose λ bracket it
// (a track's consecutive points, however far apart): the end game's Hermite crossing, with the
// tangents taken at a and b and oriented along b − a, corrected by Newton at fixed λ to the final
// tolerances. When that Newton does not converge, the curve is stepped along from a (tangent
// predictor, the normal-flow corrector to the arc tolerances, the angle test; first step half the
// chord) until a step's ends bracket λ and Newton converges from their crossing; each failure
// halves the step, at most `max_shortenings` times (and at most options.max_steps steps).
// Numerical when it still does not converge.
// REQUIRES: (a[n] − lambda)(b[n] − lambda) <= 0, a != b, both within the arc tolerances of the curve.
Result<Eigen::VectorXd> CorrectAtLambdaBetween(const HomotopyMap& map, const Eigen::VectorXd& a, const Eigen::VectorXd& b,
                                               double lambda, const NormalFlowOptions& options, int max_shortenings,
                                               int* evaluations = nullptr);

const char* NormalFlowStopName(NormalFlowStop stop);

}  // namespace seqflow

// The EM_λ fixed-point curve traced by the normal-flow tracker (normal_flow.h), so the path turns
// at folds instead of jumping branches and runs on to λ = 1 (Haffari & Sarkar 2008, Fig. 3–4).
//
// The map handed to TrackNormalFlow is ρ(Θ̃, λ) = Θ̃ − EM_λ(Θ̂), Θ̂ = max(Θ̃, kThetaFloor): the
// fixed-point map of Eq. 7 with EM_λ read at the parameters projected onto the domain. It equals
// F of path_tracker.h wherever Θ̃ > floor (every point with λ < 1: EM_λ >= (1 − λ) EM_0 > 0), is
// defined on all of R^(P+1), and its zero at λ = 1 may put Θ̃_i on the boundary, where EM_1 drives
// a probability to 0 (the Euler tracker clips its iterates to the same floor). Its derivative
// almost everywhere is
//   Dρ = [I − λ J M, EM_0 − EM_1(Θ̂)],   M = diag(Θ̃_i > floor),   J = ∂EM_1/∂Θ̃ at Θ̂ (jacobian.h),
// given to the tracker densely (Householder QR, small P) or as products (J v by the tangent
// pass, GMRES on the bordered systems, right-preconditioned by the per-word blocks of
// word_block_preconditioner.h when `precondition` is on): curve_linearization.h.
//
// Every accepted point is recorded as path_tracker.h records its points: λ, dλ/ds (the unit
// tangent's last component), μ_max and sign det(I − λJ) (spectrum of path_linear_algebra.h: all
// eigenvalues when dense and P <= kDenseEigenMaxP, else μ_max by warm-started Lanczos),
// min_eig = λ μ_max − 1, the mean token posterior entropy on U, ‖ρ‖_∞ and Θ̂. s is the tracker's
// arc length (sum of chords), `step` its h, `corrector_iterations` its Newton count.
// The end: near λ = 1 the curve runs almost tangent to λ = 1 (EM_1's fixed points are nearly
// degenerate, μ_max → 1, and Θ̃_i → 0 for the probabilities EM_1 drives to 0), where the tracker
// crawls with steps of 1e-15; so once a point has λ >= lambda_end − end_gap the last point is
// landed on λ = lambda_end by Newton at fixed λ (CorrectAtFixedLambda, the tracker's final
// tolerances), as the tracker's own end game lands a step that crosses λ = lambda_end. Where
// Newton fails there (I − J singular at λ = 1), EM_1 warm-started at the last point lands it
// (end_em_iterations updates; its ‖ρ‖_∞ is what it is, recorded).
// Re-entry (max_reentries > 0): where the tracker's step falls below min_step short of λ = 1 — on
// the citations, at points where Dρ = [I − λJ, EM_0 − EM_1] loses rank (the smallest singular
// value of [Dρ; tᵀ] falls from ~0.06 to 3e-4 over the last steps, Newton from any prediction
// past it wanders with ‖ρ‖ ~ 1e-8) — the trace re-enters the zero set at λ + reentry_gap: EM_λ
// iterated from the last point (reentry_em_iterations at most) reaches a fixed point there, which
// Newton at fixed λ polishes to the final tolerances, and the tracker starts afresh from it,
// heading toward larger λ. That point is flagged (PathPoint::reentry); it need not lie on the
// stretch the trace was following (past a branch point no tracker can tell which branch is
// "the" path: EM_λ's iteration picks one it is attracted to), and its arc length continues by the
// chord. A stretch re-entered that way can lead back to the point it stalled at (the citations'
// did, 26 points later): a re-entry from a stalled point within kSameStall of one re-entered from
// before takes twice that one's gap (ReentryGap), so the trace cannot cycle. Where EM_λ or the
// polish fails, the trace stops as without re-entry.
// Stops: kReachedEnd (the last point is on λ = lambda_end exactly), kLeftInterval (the curve
// turned back below λ = 0; the last point is the first with λ < 0), kMaxSteps, kStepTooSmall.
//
// Pure function: no I/O; threads only inside EM_1 and J products (fixed shard order), so the
// path is bit-identical for any thread count. Progress after each recorded point; a cancelled
// token is Status::Cancelled. Checkpoints (KernelCheckpoints) after each accepted point short of
// the landing: the tracker's state, the points so far and the Lanczos warm start; a trace resumed
// from one ends with the same bits as one never interrupted; a trace stopped by max_steps keeps
// its last state, from which a larger max_steps continues to the bits of a run with it.
// REQUIRES: em0 = Em0(layout, ...) with every entry > 0; unlabeled non-empty; frozen supplies
// the frozen blocks.
#pragma once

#include <Eigen/Dense>
#include <vector>

#include "engine/base/status.h"
#include "nodes/common/kernel_checkpoints.h"
#include "nodes/homotopy/path_tracker.h"
#include "nodes/numerics/normal_flow.h"

namespace seqflow {

struct EmLambdaCurveOptions {
  PathSolver solver = PathSolver::kMatrixFree;
  NormalFlowOptions tracker;
  LinearSolveOptions linear;
  // matrix-free: relative residual of the Newton-step solves (inexact Newton); 0: linear.gmres's.
  double step_gmres_tol = 0;
  // matrix-free: GMRES keeps up to this many directions between restarts and between a chord
  // corrector's Newton solves (recycling_gmres.h); 0: plain restarted GMRES.
  int gmres_recycle = 0;
  bool precondition = false;  // matrix-free: GMRES with the per-word block preconditioner (measured slower on the citations)
  double end_gap = 1e-3;  // land on lambda_end from the first point within this of it
  int end_em_iterations = 200;
  bool record_spectrum = true;
  int threads = 1;
  int max_reentries = 0;  // 0: a stalled step ends the trace
  double reentry_gap = 1e-4;
  int reentry_em_iterations = 2000;
};

// Stalled points closer than this (max norm over Θ̂ and λ) are one point.
inline constexpr double kSameStall = 1e-5;

// The λ gap of a re-entry from the stalled point (theta, lambda) of a trace whose points so far are
// `points` (each flagged re-entry preceded by the point it was made from): `gap` doubled once for
// every earlier re-entry from the same point.
double ReentryGap(const std::vector<PathPoint>& points, const Eigen::VectorXd& theta, double lambda, double gap);

// The map ρ above with its linearisation, for TrackNormalFlow. The references (and `products`,
// optional: incremented by every Dρ product of the matrix-free back end) must outlive it.
HomotopyMap EmLambdaCurveMap(const PomLayout& layout, const HmmParams& frozen, const Eigen::VectorXd& em0,
                             const IdSentences& unlabeled, const EmLambdaCurveOptions& options,
                             int64_t* products = nullptr);

Result<PathResult> TraceEmLambdaCurve(const PomLayout& layout, const HmmParams& frozen, const Eigen::VectorXd& em0,
                                      const IdSentences& unlabeled, const EmLambdaCurveOptions& options,
                                      const PathCallbacks& callbacks = {}, const KernelCheckpoints& checkpoints = {});

}  // namespace seqflow

// Traces the curve of EM_λ fixed points, F(Θ̃, λ) = Θ̃ − (1 − λ) EM_0 − λ EM_1(Θ̃) = 0, from
// (EM_0, λ = 0) towards λ = 1 (Haffari & Sarkar 2008, Algorithm 1), parameterised by arc length
// s in R^(P+1) so the path can turn back in λ at folds (Eq. 3).
//
// Each step, at a point z_k = (Θ̃_k, λ_k) on the curve:
//   1. tangent η_k = unit kernel vector of DF(z_k), oriented by η_k · η_k-1 > 0 (η_-1 = [0, 1]);
//   2. Euler predictor z_pred = z_k + δ η_k (Algorithm 1, line 12);
//   3. corrector (beyond the paper): Newton on the augmented system
//        F(z) = 0,  η_kᵀ (z − z_pred) = 0
//      (the pseudo-arclength hyperplane through z_pred), each step solving
//      [DF(z); η_kᵀ] Δ = −[F(z); η_kᵀ(z − z_pred)] with the chosen back end (path_linear_algebra.h);
//      with `chord` the Jacobian of z_k is reused (one factorisation per step for the dense
//      back end). corrector_iterations = 0 gives the paper's Euler-only method;
//   4. adaptive step (Allgower & Georg 1993): grow δ when the corrector converged in <= 2
//      iterations, halve it and retry from z_k when it did not converge; stop below min_step.
//      The corrector also gives up when a Newton step cannot be solved (a non-finite Δ: the
//      matrix-free GMRES did not converge). Near a fold a predictor that overshoots sends Newton
//      away from the curve, where every further solve ran to GMRES's max_iter (2,000 products)
//      before the step was halved anyway.
//      Without `adaptive`, δ is fixed and every corrected point is accepted.
//   5. end game: a step that would cross λ_end is shortened to land on it, and corrected with
//      λ = λ_end held fixed, so the path ends exactly there (at λ = 1 the fixed point may sit on
//      the boundary Θ̃_i = 0, which ordinary steps overshoot again and again).
//   s advances by δ per accepted step (pseudo-arclength: z_k+1 lies on the hyperplane at
//   distance δ along η_k). Θ̃ is clipped at kThetaFloor after every update: EM_λ of a positive
//   Θ̃ is positive, but an Euler step can overshoot below 0, where log θ is undefined.
// Recorded at every accepted point (§5.2's selection criteria): s, λ, dλ/ds = η_P+1, μ_max (largest
// eigenvalue of J), min_eig = λ μ_max − 1 (the eigenvalue of λJ − I closest to 0 until one has
// crossed), the sign of det(I − λJ), the posterior entropy on U, the residual ‖F‖_∞ and Θ̃.
// Stops when λ reaches lambda_end (the last point has λ = lambda_end exactly), when the curve
// turns back below λ = 0 (kLeftInterval; the last point is the first with λ < 0), after
// max_steps steps, or when the adaptive step falls below min_step. A cancelled token is
// Status::Cancelled, checked after each recorded point.
//
// Pure function: no I/O; threads only inside EM_1 and J products (fixed shard order), so the
// path is bit-identical for any thread count. Progress through a callback, called on the
// caller's thread after each recorded point.
// REQUIRES: em0 = Em0(layout, ...) with every entry > 0 (ε > 0 for every free block);
// unlabeled non-empty; frozen supplies the frozen blocks; 0 < min_step <= step <= max_step.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <functional>
#include <vector>

#include "engine/base/cancel.h"
#include "engine/base/status.h"
#include "nodes/homotopy/path_linear_algebra.h"
#include "nodes/semi_supervised/pom_layout.h"

namespace seqflow {

inline constexpr double kThetaFloor = 1e-12;

struct PathOptions {
  PathSolver solver = PathSolver::kMatrixFree;
  double step = 0.01;  // δ: fixed, or the first step when adaptive
  bool adaptive = true;
  double min_step = 1e-6;
  double max_step = 0.5;
  double growth = 2.0;  // δ ← min(growth δ, max_step) after an easy correction
  int max_steps = 10000;
  double lambda_end = 1.0;
  int corrector_iterations = 6;  // 0: Euler predictor only (Algorithm 1)
  double corrector_tol = 1e-10;  // converged when ‖F‖_∞ <= tol · max(1, ‖Θ̃‖_∞)
  bool chord = false;
  bool record_spectrum = true;
  LinearSolveOptions linear;
  int threads = 1;
};

struct PathPoint {
  double s = 0;
  double lambda = 0;
  double dlambda_ds = 0;
  double mu_max = 0;           // largest eigenvalue of J (0 unless record_spectrum)
  double min_eig = -1;         // λ μ_max − 1
  int det_sign = 1;            // sign of det(I − λJ) = (−1)^eigs_crossed
  int eigs_crossed = 0;        // eigenvalues μ of J with λ μ > 1
  bool crossed_exact = false;  // all eigenvalues counted (dense, small P) or only μ_max
  double entropy = 0;          // mean per-token posterior label entropy on U, nats
  double residual = 0;         // ‖F(Θ̃, λ)‖_∞
  double step = 0;             // δ of the step that reached this point (0 at the start)
  int corrector_iterations = 0;
  bool reentry = false;        // the first point after a re-entry (em_lambda_curve.h)
  Eigen::VectorXd theta_tilde;  // [P] the model is layout.ToHmm(theta_tilde, frozen)
};

enum class PathStop { kReachedEnd, kLeftInterval, kMaxSteps, kStepTooSmall };

struct PathResult {
  std::vector<PathPoint> points;
  PathStop stop = PathStop::kReachedEnd;
  // J products of this call (TraceEmLambdaCurve's matrix-free back end; 0 otherwise, and not
  // those of a resumed trace's earlier part): in the linear solves (tangents, Newton steps,
  // landing) and in the Lanczos μ_max of the recorded points. What a path costs, load-free.
  int64_t solve_products = 0;
  int64_t spectrum_products = 0;
  int reentries = 0;  // TraceEmLambdaCurve: points where the trace re-entered the curve
};

struct PathCallbacks {
  std::function<void(int step, double lambda)> progress;  // optional
  CancelToken cancel;
};

Result<PathResult> TraceEmLambdaPath(const PomLayout& layout, const HmmParams& frozen, const Eigen::VectorXd& em0,
                                     const IdSentences& unlabeled, const PathOptions& options,
                                     const PathCallbacks& callbacks = {});

}  // namespace seqflow

#include "nodes/homotopy/path_tracker.h"

#include <algorithm>
#include <memory>
#include <optional>

namespace seqflow {
namespace {

using Linearization = std::unique_ptr<PathLinearization>;

struct PathCorrection {
  Linearization lin;  // at z
  Eigen::VectorXd z;
  double step = 0;  // the predictor's arc length δ
  int iterations = 0;
  bool converged = false;
};

class PathTracker {
 public:
  PathTracker(const PomLayout& layout, const HmmParams& frozen, const Eigen::VectorXd& em0, const IdSentences& unlabeled,
          const PathOptions& options)
      : layout_(layout),
        frozen_(frozen),
        em0_(em0),
        unlabeled_(unlabeled),
        options_(options),
        P_(layout.num_params()) {}

  // z = (Θ̃, λ) of size P + 1.
  Linearization At(const Eigen::VectorXd& z) const {
    EmJacobian em(layout_, frozen_, z.head(P_), unlabeled_, options_.threads);
    return Linearize(options_.solver, std::move(em), z[P_], em0_, options_.linear);
  }

  Eigen::VectorXd Clip(Eigen::VectorXd z) const {
    z.head(P_) = z.head(P_).cwiseMax(kThetaFloor);
    return z;
  }

  bool Converged(const PathLinearization& lin) const {
    const double scale = std::max(1.0, lin.em().theta_tilde().cwiseAbs().maxCoeff());
    return lin.residual().cwiseAbs().maxCoeff() <= options_.corrector_tol * scale;
  }

  // Newton (or chord) iterations on F(z) = 0, cᵀ(z − z_pred) = 0 from z_pred.
  PathCorrection Correct(const Eigen::VectorXd& z_pred, const Eigen::VectorXd& c_row, PathLinearization* base) const {
    PathCorrection c{nullptr, z_pred, 0, 0, false};
    for (;; ++c.iterations) {
      c.lin = At(c.z);
      if (options_.corrector_iterations == 0 || Converged(*c.lin)) {
        c.converged = true;
        return c;
      }
      if (c.iterations == options_.corrector_iterations) return c;
      PathLinearization* solver = options_.chord ? base : c.lin.get();
      const Eigen::VectorXd delta = solver->SolveAugmented(c_row, -c.lin->residual(), -c_row.dot(c.z - z_pred));
      if (!delta.allFinite()) return c;
      c.z = Clip(c.z + delta);
    }
  }

  // Predictor and corrector from z along η; when adaptive, halves δ until the corrector
  // converges, giving up (nullopt) below min_step. A step that would cross λ_end is shortened
  // to land on it and corrected with λ held there (constraint row e_λ instead of η), so the
  // path ends exactly at λ_end: past it (1 − λ) EM_0 < 0, and at λ = 1 the fixed point may lie
  // on the boundary Θ̃_i = 0, which predictors overshoot (the pseudo-count (1 − λ) ε of a
  // parameter EM drives to 0 vanishes), stalling a corrector on the hyperplane ⟂ η.
  std::optional<PathCorrection> Advance(const Eigen::VectorXd& z, const Eigen::VectorXd& eta, PathLinearization* base,
                                    double* delta) const {
    const double to_end = eta[P_] > 0 ? (options_.lambda_end - z[P_]) / eta[P_] : *delta + 1;
    for (;;) {
      const bool last = *delta >= to_end;
      const double step = last ? to_end : *delta;
      Eigen::VectorXd z_pred = Clip(z + step * eta);
      if (last) z_pred[P_] = options_.lambda_end;
      PathCorrection c = Correct(z_pred, last ? Eigen::VectorXd(Eigen::VectorXd::Unit(P_ + 1, P_)) : eta, base);
      c.step = step;
      if (c.converged || !options_.adaptive) return c;
      *delta = step / 2;
      if (*delta < options_.min_step) return std::nullopt;
    }
  }

  PathPoint Record(PathLinearization* lin, const Eigen::VectorXd& eta, Eigen::VectorXd* warm) const {
    PathPoint p;
    p.lambda = lin->lambda();
    p.dlambda_ds = eta[P_];
    p.entropy = lin->em().covariance().mean_token_entropy();
    p.residual = lin->residual().cwiseAbs().maxCoeff();
    p.theta_tilde = lin->em().theta_tilde();
    if (options_.record_spectrum) {
      const JacobianSpectrum spectrum = lin->Spectrum(warm);
      p.mu_max = spectrum.mu_max;
      p.min_eig = p.lambda * spectrum.mu_max - 1;
      p.eigs_crossed = spectrum.num_crossed;
      p.det_sign = spectrum.num_crossed % 2 == 0 ? 1 : -1;
      p.crossed_exact = spectrum.exact;
    }
    return p;
  }

  int P() const { return P_; }

 private:
  const PomLayout& layout_;
  const HmmParams& frozen_;
  const Eigen::VectorXd& em0_;
  const IdSentences& unlabeled_;
  const PathOptions& options_;
  int P_;
};

std::optional<PathStop> StopReason(const PathOptions& options, int step, double lambda) {
  if (lambda >= options.lambda_end) return PathStop::kReachedEnd;
  // Past a fold the curve may head back through λ = 0: outside [0, 1] it no longer mixes L and U.
  if (lambda < 0) return PathStop::kLeftInterval;
  if (step >= options.max_steps) return PathStop::kMaxSteps;
  return std::nullopt;
}

}  // namespace

Result<PathResult> TraceEmLambdaPath(const PomLayout& layout, const HmmParams& frozen, const Eigen::VectorXd& em0,
                                     const IdSentences& unlabeled, const PathOptions& options,
                                     const PathCallbacks& callbacks) {
  const PathTracker tracker(layout, frozen, em0, unlabeled, options);
  const int P = tracker.P();
  Eigen::VectorXd z(P + 1);
  z << em0, 0.0;                                              // Algorithm 1, line 4
  Eigen::VectorXd eta_old = Eigen::VectorXd::Unit(P + 1, P);  // line 5
  Linearization lin = tracker.At(z);
  Eigen::VectorXd warm;
  PathResult result;
  double s = 0;
  double delta = options.step;
  double last_step = 0;
  int last_iterations = 0;
  for (int step = 0;; ++step) {
    const Eigen::VectorXd eta = lin->Tangent(eta_old);
    PathPoint point = tracker.Record(lin.get(), eta, &warm);
    point.s = s;
    point.step = last_step;
    point.corrector_iterations = last_iterations;
    result.points.push_back(std::move(point));
    if (callbacks.progress) callbacks.progress(step, z[P]);
    if (Status cancelled = callbacks.cancel.Check("homotopy path"); !cancelled.ok()) return cancelled;
    if (const std::optional<PathStop> stop = StopReason(options, step, z[P])) {
      result.stop = *stop;
      return result;
    }
    std::optional<PathCorrection> c = tracker.Advance(z, eta, lin.get(), &delta);
    if (!c) {
      result.stop = PathStop::kStepTooSmall;
      return result;
    }
    s += c->step;
    last_step = c->step;
    last_iterations = c->iterations;
    z = c->z;
    lin = std::move(c->lin);
    eta_old = eta;
    if (options.adaptive && c->iterations <= 2) delta = std::min(delta * options.growth, options.max_step);
  }
}

}  // namespace seqflow

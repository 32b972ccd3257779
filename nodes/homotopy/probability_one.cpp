#include "nodes/common/portable_math.h"
#include "nodes/homotopy/probability_one.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace seqflow {

HomotopyMap ProbabilityOneMap(const ClassifierLayout& layout, const Eigen::VectorXd& theta0, const ClassifierData& data,
                              const ProbabilityOneOptions& options) {
  return [&layout, theta0, &data, options](const Eigen::VectorXd& y) -> Result<CurveEvaluation> {
    const int P = layout.num_params();
    const Eigen::VectorXd theta = y.head(P);
    const double lambda = y[P];
    CurveEvaluation out;
    // EM is a rational function of Θ̃, smooth wherever every scaling sum c_t and every mixture
    // likelihood stays positive, and the curve from Θ̃_0 keeps Θ̃ >= (1 − τ) Θ̃_0 + τ ε-terms > 0.
    // Tracked points may lie a tracking tolerance below 0 near the boundary; an iterate further
    // off (a predictor overshoot) may converge to another branch of the rational map, so it is
    // outside the domain and the step is halved.
    // λ < 0 is outside too: the curve cannot come back to λ = 0 (Θ̃_0 is H(0, ·)'s only zero), so a
    // corrected point there has jumped to the start's own segment across a sharp return near 0.
    if (theta.minCoeff() < -options.domain_slack || lambda < 0) {
      out.outside_domain = true;
      return out;
    }
    ClassifierEmOptions em_options;
    em_options.smoothing = options.smoothing;
    em_options.jacobians = true;
    em_options.threads = options.threads;
    Result<ClassifierEmValue> evaluated = EvaluateClassifierEm(layout, theta, data, em_options);
    if (!evaluated.ok() && evaluated.status().code() == StatusCode::kNumerical) {
      out.outside_domain = true;
      return out;
    }
    SEQFLOW_ASSIGN_OR_RETURN(ClassifierEmValue em, std::move(evaluated));
    const double tau = Tanh(options.tanh_scale * lambda);
    const double dtau = options.tanh_scale * (1 - tau * tau);
    const Eigen::VectorXd em_lambda = (1 - lambda) * em.em0 + lambda * em.em1;
    out.rho = theta - (1 - tau) * theta0 - tau * em_lambda;
    Eigen::MatrixXd d(P, P + 1);
    d.leftCols(P) = -tau * ((1 - lambda) * em.em0_jacobian + lambda * em.em1_jacobian);
    d.leftCols(P).diagonal().array() += 1.0;
    d.col(P) = dtau * (theta0 - em_lambda) - tau * (em.em1 - em.em0);
    out.linearization = DenseCurveLinearization(d);
    return out;
  };
}

Result<ClassifierPathPoint> DescribeClassifierPoint(const ClassifierLayout& layout, const Eigen::VectorXd& theta_tilde,
                                                    double lambda, const ClassifierData& data,
                                                    const std::vector<int32_t>& unlabeled_truth, double smoothing,
                                                    int threads) {
  ClassifierEmOptions o;
  o.smoothing = smoothing;
  o.threads = threads;
  SEQFLOW_ASSIGN_OR_RETURN(ClassifierEmValue em, EvaluateClassifierEm(layout, theta_tilde, data, o));
  ClassifierPathPoint p;
  p.lambda = lambda;
  p.theta_tilde = theta_tilde;
  p.entropy = MeanClassEntropy(em.unlabeled_posteriors);
  p.log_likelihood = em.unlabeled_log_likelihood;
  if (!unlabeled_truth.empty()) {
    const std::vector<int32_t> predicted = ArgmaxClasses(em.unlabeled_posteriors);
    size_t correct = 0;
    for (size_t j = 0; j < predicted.size(); ++j) correct += predicted[j] == unlabeled_truth[j];
    p.accuracy = static_cast<double>(correct) / static_cast<double>(predicted.size());
  }
  return p;
}

namespace {

// What a track continues from, where the track keeps it: the tracker's state after an accepted
// point and the points so far.
struct TrackState {
  NormalFlowState& tracker;
  std::vector<NormalFlowPoint>& points;
};

StateTable<TrackState> TrackStateTable(int num_params) {
  return StateTable<TrackState>("probability-one path")
      .Struct([](auto& t) -> auto& { return t.tracker; }, NormalFlowStateTable())
      .Records([](auto& t) -> auto& { return t.points; }, NormalFlowPointTable(), {.min = 1})
      .Check([num_params](const TrackState& t) {
        return t.tracker.current.y.size() == num_params + 1 &&
               std::all_of(t.points.begin(), t.points.end(),
                           [&](const NormalFlowPoint& q) { return q.y.size() == num_params + 1; });
      });
}

}  // namespace

Result<ClassifierPath> TraceProbabilityOne(const ClassifierLayout& layout, const Eigen::VectorXd& theta0,
                                           const ClassifierData& data, const std::vector<int32_t>& unlabeled_truth,
                                           const ProbabilityOneOptions& options,
                                           const NormalFlowCallbacks& callbacks,
                                           const KernelCheckpoints& checkpoints) {
  const int P = layout.num_params();
  const HomotopyMap map = ProbabilityOneMap(layout, theta0, data, options);
  Eigen::VectorXd y0(P + 1);
  y0 << theta0, 0.0;
  // The track's points, those before a resumed state included.
  std::vector<NormalFlowPoint> points;
  const StateTable<TrackState> table = TrackStateTable(P);
  std::optional<NormalFlowState> resume;
  if (checkpoints.resume_from != nullptr) {
    NormalFlowState saved;
    TrackState into{saved, points};
    SEQFLOW_RETURN_IF_ERROR(table.Decode(*checkpoints.resume_from, into));
    resume = std::move(saved);
  }
  NormalFlowCallbacks tracking = callbacks;
  tracking.progress = [&](const NormalFlowPoint& q) {
    points.push_back(q);
    if (callbacks.progress) callbacks.progress(q);
  };
  if (checkpoints.offer) {
    tracking.checkpoint = [&](const NormalFlowState& state) {
      checkpoints.offer([&] {
        NormalFlowState tracker = state;  // small beside the points
        return table.Encode(TrackState{tracker, points});
      });
    };
  }
  SEQFLOW_ASSIGN_OR_RETURN(NormalFlowResult track,
                           TrackNormalFlow(map, y0, options.tracker, tracking, resume ? &*resume : nullptr));
  ClassifierPath path;
  path.stop = track.stop;
  path.evaluations = track.evaluations;
  path.steps = track.steps;
  for (const NormalFlowPoint& q : points) {
    SEQFLOW_ASSIGN_OR_RETURN(ClassifierPathPoint p,
                             DescribeClassifierPoint(layout, q.y.head(P), q.y[P], data, unlabeled_truth,
                                                     options.smoothing, options.threads));
    p.s = q.s;
    p.dlambda_ds = q.tangent[P];
    path.points.push_back(std::move(p));
  }
  for (size_t k = 1; k + 1 < path.points.size(); ++k) {
    const double l = path.points[k].lambda;
    if (l < path.points[k - 1].lambda && l <= path.points[k + 1].lambda && l < options.return_threshold) {
      ++path.returns;
      path.final_segment_start = k;
    }
  }
  return path;
}

Result<ClassifierPathPoint> PathPointAtLambda(const ClassifierLayout& layout, const Eigen::VectorXd& theta0,
                                              const ClassifierData& data, const std::vector<int32_t>& unlabeled_truth,
                                              const ProbabilityOneOptions& options, const ClassifierPath& path,
                                              double lambda) {
  const int P = layout.num_params();
  for (size_t k = path.final_segment_start; k + 1 < path.points.size(); ++k) {
    const ClassifierPathPoint& a = path.points[k];
    const ClassifierPathPoint& b = path.points[k + 1];
    if ((a.lambda - lambda) * (b.lambda - lambda) > 0) continue;
    const double u = b.lambda == a.lambda ? 0.0 : (lambda - a.lambda) / (b.lambda - a.lambda);
    Eigen::VectorXd y(P + 1);
    y << (1 - u) * a.theta_tilde + u * b.theta_tilde, lambda;
    const HomotopyMap map = ProbabilityOneMap(layout, theta0, data, options);
    Result<Eigen::VectorXd> z =
        CorrectAtFixedLambda(map, y, options.tracker.final_rel_tol, options.tracker.final_abs_tol, 20);
    // Points far apart (long steps) can leave the chord's point outside Newton's range.
    constexpr int kStepShortenings = 20;
    if (!z.ok() && z.status().code() == StatusCode::kNumerical) {
      Eigen::VectorXd ya(P + 1), yb(P + 1);
      ya << a.theta_tilde, a.lambda;
      yb << b.theta_tilde, b.lambda;
      z = CorrectAtLambdaBetween(map, ya, yb, lambda, options.tracker, kStepShortenings);
    }
    SEQFLOW_RETURN_IF_ERROR(z.status());
    SEQFLOW_ASSIGN_OR_RETURN(ClassifierPathPoint p, DescribeClassifierPoint(layout, z->head(P), lambda, data,
                                                                            unlabeled_truth, options.smoothing,
                                                                            options.threads));
    p.s = a.s + u * (b.s - a.s);
    return p;
  }
  return Status::Invalid("probability-one path: the final segment does not reach λ = " + std::to_string(lambda));
}

}  // namespace seqflow

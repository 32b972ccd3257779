#include "nodes/homotopy/em_lambda_curve.h"

#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "nodes/homotopy/word_block_preconditioner.h"
#include "nodes/semi_supervised/em_lambda.h"

namespace seqflow {
namespace {

// Θ̂ = max(Θ̃, floor) and the mask M of the coordinates above the floor.
struct Projected {
  Eigen::VectorXd theta;
  Eigen::VectorXd mask;  // 1 or 0
};

Projected Project(const Eigen::VectorXd& theta_tilde) {
  Projected p{theta_tilde.cwiseMax(kThetaFloor), Eigen::VectorXd(theta_tilde.size())};
  for (Eigen::Index i = 0; i < theta_tilde.size(); ++i) p.mask[i] = theta_tilde[i] > kThetaFloor ? 1.0 : 0.0;
  return p;
}

// Dρ = [I − λ J M, EM_0 − EM_1] densely.
Eigen::MatrixXd DenseDrho(const PathLinearization& lin, const Eigen::VectorXd& mask) {
  const Eigen::Index P = mask.size();
  Eigen::MatrixXd d(P, P + 1);
  d.leftCols(P) = -lin.lambda() * (lin.em().Dense() * mask.asDiagonal());
  d.leftCols(P).diagonal().array() += 1.0;
  d.col(P) = lin.dF_dlambda();
  return d;
}

void EncodePathPoint(const PathPoint& p, ByteWriter& out) {
  for (double v : {p.s, p.lambda, p.dlambda_ds, p.mu_max, p.min_eig, p.entropy, p.residual, p.step}) out.F64(v);
  for (int v : {p.det_sign, p.eigs_crossed, p.crossed_exact ? 1 : 0, p.corrector_iterations, p.reentry ? 1 : 0})
    out.I64(v);
  out.F64s(p.theta_tilde.data(), static_cast<size_t>(p.theta_tilde.size()));
}

Eigen::VectorXd ReadVector(ByteReader& in, Eigen::Index size) {
  const std::vector<double> v = in.F64s();
  if (static_cast<Eigen::Index>(v.size()) != size) throw StatusError(Status::Corruption("vector size"));
  return Eigen::Map<const Eigen::VectorXd>(v.data(), size);
}

PathPoint DecodePathPoint(ByteReader& in, Eigen::Index num_params) {
  PathPoint p;
  for (double* v : {&p.s, &p.lambda, &p.dlambda_ds, &p.mu_max, &p.min_eig, &p.entropy, &p.residual, &p.step})
    *v = in.F64();
  p.det_sign = static_cast<int>(in.I64());
  p.eigs_crossed = static_cast<int>(in.I64());
  p.crossed_exact = in.I64() != 0;
  p.corrector_iterations = static_cast<int>(in.I64());
  p.reentry = in.I64() != 0;
  p.theta_tilde = ReadVector(in, num_params);
  return p;
}

// Where the tracker's current run starts: the trace's start, or its latest re-entry. The
// tracker's arc length and step count restart there.
struct Segment {
  double s_offset = 0;  // the trace's arc length at the segment's first point
  int steps_before = 0;  // tracking steps of the earlier segments
  int reentries = 0;
};

// What a trace continues from after an accepted point.
struct CurveState {
  NormalFlowState tracker;
  NormalFlowPoint last;  // the point the landing starts from (the segment's arc length)
  Eigen::VectorXd warm;  // Lanczos's start for the next point's spectrum
  Segment segment;
  std::vector<PathPoint> points;
};

std::string EncodeCurveState(const NormalFlowState& tracker, const NormalFlowPoint& last, const Eigen::VectorXd& warm,
                             const Segment& segment, const std::vector<PathPoint>& points) {
  ByteWriter out;
  EncodeNormalFlowState(tracker, out);
  EncodeNormalFlowPoint(last, out);
  out.F64s(warm.data(), static_cast<size_t>(warm.size()));
  out.F64(segment.s_offset);
  out.I64(segment.steps_before);
  out.I64(segment.reentries);
  out.U64(points.size());
  for (const PathPoint& p : points) EncodePathPoint(p, out);
  return out.Take();
}

Result<CurveState> DecodeCurveState(const std::string& bytes, Eigen::Index num_params) {
  try {
    ByteReader in(bytes);
    CurveState state;
    state.tracker = DecodeNormalFlowState(in);
    state.last = DecodeNormalFlowPoint(in);
    const std::vector<double> warm = in.F64s();
    state.warm = Eigen::Map<const Eigen::VectorXd>(warm.data(), static_cast<Eigen::Index>(warm.size()));
    state.segment.s_offset = in.F64();
    state.segment.steps_before = static_cast<int>(in.I64());
    state.segment.reentries = static_cast<int>(in.I64());
    const size_t count = in.Count(1);
    for (size_t i = 0; i < count; ++i) state.points.push_back(DecodePathPoint(in, num_params));
    in.ExpectEnd();
    if (state.tracker.current.y.size() != num_params + 1 || state.last.y.size() != num_params + 1 ||
        state.points.empty())
      throw StatusError(Status::Corruption("dimension"));
    return state;
  } catch (const StatusError& e) {
    return Status::Invalid("em_lambda curve: the checkpoint does not fit this path (" + e.status().message() + ")");
  }
}

}  // namespace

double ReentryGap(const std::vector<PathPoint>& points, const Eigen::VectorXd& theta, double lambda, double gap) {
  for (size_t i = 1; i < points.size(); ++i) {
    const PathPoint& from = points[i - 1];
    if (points[i].reentry && std::abs(from.lambda - lambda) <= kSameStall &&
        (from.theta_tilde - theta).cwiseAbs().maxCoeff() <= kSameStall)
      gap *= 2;
  }
  return gap;
}

HomotopyMap EmLambdaCurveMap(const PomLayout& layout, const HmmParams& frozen, const Eigen::VectorXd& em0,
                             const IdSentences& unlabeled, const EmLambdaCurveOptions& options,
                             int64_t* products) {
  auto symbol_counts = std::make_shared<const Eigen::VectorXd>(SymbolCounts(unlabeled, layout.num_symbols()));
  return [&layout, &frozen, &em0, &unlabeled, &options, symbol_counts,
          products](const Eigen::VectorXd& y) -> Result<CurveEvaluation> {
    const Eigen::Index P = layout.num_params();
    CurveEvaluation e;
    if (!y.allFinite()) {
      e.outside_domain = true;
      return e;
    }
    auto projected = std::make_shared<const Projected>(Project(y.head(P)));
    EmJacobian em(layout, frozen, projected->theta, unlabeled, options.threads);
    std::shared_ptr<const PathLinearization> lin =
        Linearize(PathSolver::kMatrixFree, std::move(em), y[P], em0, options.linear);
    e.rho = lin->residual() + (y.head(P) - projected->theta);
    if (options.solver == PathSolver::kDense) {
      e.linearization = DenseCurveLinearization(DenseDrho(*lin, projected->mask));
      return e;
    }
    // Dρ d = D F (M d_Θ, d_λ) + (I − M) d_Θ.
    auto apply = [lin, projected, P, products](const Eigen::VectorXd& d) -> Eigen::VectorXd {
      if (products != nullptr) ++*products;
      Eigen::VectorXd masked = d;
      masked.head(P) = d.head(P).cwiseProduct(projected->mask);
      return lin->ApplyDF(masked) + (d.head(P) - masked.head(P));
    };
    LinearOperator precondition;
    if (options.precondition) {
      auto blocks = std::make_shared<const WordBlockPreconditioner>(
          layout, projected->theta, projected->mask, lin->em().covariance().expected_counts(), *symbol_counts,
          static_cast<double>(unlabeled.size()), y[P]);
      precondition = [blocks](const Eigen::VectorXd& v) { return blocks->Apply(v); };
    }
    e.linearization =
        KrylovCurveLinearization(apply, P, options.linear.gmres, std::move(precondition), options.step_gmres_tol,
                                 options.gmres_recycle);
    return e;
  };
}

Result<PathResult> TraceEmLambdaCurve(const PomLayout& layout, const HmmParams& frozen, const Eigen::VectorXd& em0,
                                      const IdSentences& unlabeled, const EmLambdaCurveOptions& options,
                                      const PathCallbacks& callbacks, const KernelCheckpoints& checkpoints) {
  const Eigen::Index P = layout.num_params();
  PathResult result;
  const HomotopyMap map = EmLambdaCurveMap(layout, frozen, em0, unlabeled, options, &result.solve_products);
  Eigen::VectorXd warm;
  NormalFlowPoint last;
  Segment segment;
  std::optional<NormalFlowState> resume;
  if (checkpoints.resume_from != nullptr) {
    SEQFLOW_ASSIGN_OR_RETURN(CurveState saved, DecodeCurveState(*checkpoints.resume_from, P));
    resume = std::move(saved.tracker);
    last = std::move(saved.last);
    warm = std::move(saved.warm);
    segment = saved.segment;
    result.points = std::move(saved.points);
  }
  result.reentries = segment.reentries;
  bool reentered = false;  // the next recorded point is a re-entry's
  // The tracker's points carry (Θ̃, λ) and the tangent; the figures of §5.2 are read at each.
  auto record = [&](const NormalFlowPoint& q) {
    const Projected projected = Project(q.y.head(P));
    EmJacobian em(layout, frozen, projected.theta, unlabeled, options.threads);
    std::unique_ptr<PathLinearization> lin = Linearize(options.solver, std::move(em), q.y[P], em0, options.linear);
    PathPoint p;
    p.s = segment.s_offset + q.s;
    p.lambda = q.y[P];
    p.dlambda_ds = q.tangent[P];
    p.entropy = lin->em().covariance().mean_token_entropy();
    p.residual = (lin->residual() + (q.y.head(P) - projected.theta)).cwiseAbs().maxCoeff();
    p.step = q.step;
    p.corrector_iterations = q.corrector_iterations;
    p.reentry = reentered;
    reentered = false;
    if (options.record_spectrum) {
      const JacobianSpectrum spectrum = lin->Spectrum(&warm);
      p.mu_max = spectrum.mu_max;
      p.min_eig = p.lambda * spectrum.mu_max - 1;
      p.eigs_crossed = spectrum.num_crossed;
      p.det_sign = spectrum.num_crossed % 2 == 0 ? 1 : -1;
      p.crossed_exact = spectrum.exact;
      result.spectrum_products += spectrum.iterations;
    }
    p.theta_tilde = projected.theta;
    result.points.push_back(std::move(p));
    if (callbacks.progress) callbacks.progress(static_cast<int>(result.points.size()) - 1, q.y[P]);
  };
  NormalFlowCallbacks tracker_callbacks;
  tracker_callbacks.progress = [&](const NormalFlowPoint& q) {
    last = q;
    record(q);
  };
  tracker_callbacks.cancel = callbacks.cancel;
  // Past a fold the curve may head back through λ = 0: outside [0, 1] it no longer mixes L and U.
  const double land_from = options.tracker.lambda_end - options.end_gap;
  tracker_callbacks.stop = [&](const NormalFlowPoint& q) { return q.y[P] < 0 || q.y[P] >= land_from; };
  // The tracker's state after the last accepted point: where a larger max_steps continues.
  std::optional<NormalFlowState> latest = resume;
  tracker_callbacks.checkpoint = [&](const NormalFlowState& state) {
    if (checkpoints.keep_final) latest = state;
    if (checkpoints.offer)
      checkpoints.offer([&] { return EncodeCurveState(state, last, warm, segment, result.points); });
  };
  // Lands `last` on λ = lambda_end by Newton at fixed λ, or by EM_1 where Newton fails.
  auto land = [&]() -> Result<PathResult> {
    Eigen::VectorXd start = last.y;
    start[P] = options.tracker.lambda_end;
    Result<Eigen::VectorXd> landed = CorrectAtFixedLambda(map, start, options.tracker.final_rel_tol,
                                                          options.tracker.final_abs_tol, options.tracker.end_game_iterations);
    if (!landed.ok() && landed.status().code() != StatusCode::kNumerical) return landed.status();
    if (!landed.ok()) {
      // Newton fails where I − J is singular at λ = 1 (μ_max → 1); EM_1 itself, warm-started at
      // the last point, still converges there (linearly): its point is recorded with its ‖ρ‖.
      const HmmParams model = layout.ToHmm(Project(last.y.head(P)).theta, frozen);
      SEQFLOW_ASSIGN_OR_RETURN(EmLambdaResult em,
                               RunEmLambda(model, options.tracker.lambda_end, em0, unlabeled, layout,
                                           EmLambdaOptions{options.end_em_iterations, 0.0, options.threads},
                                           callbacks.cancel));
      landed = Eigen::VectorXd(P + 1);
      landed->head(P) = em.theta_tilde;
      (*landed)[P] = options.tracker.lambda_end;
    }
    // The tangent at λ = 1 is ill-determined (μ_max → 1 there); the landed point keeps the last one.
    NormalFlowPoint end;
    end.s = last.s + (*landed - last.y).norm();
    end.y = *landed;
    end.tangent = last.tangent;
    end.step = end.s - last.s;
    record(end);
    result.stop = PathStop::kReachedEnd;
    return result;
  };
  // The EM_λ fixed point at λ = last λ + `gap` that EM_λ's iteration reaches from the last point,
  // polished by Newton at fixed λ; nullopt where either fails.
  auto reenter = [&](double gap) -> Result<std::optional<Eigen::VectorXd>> {
    const double lambda = last.y[P] + gap;
    const HmmParams model = layout.ToHmm(Project(last.y.head(P)).theta, frozen);
    SEQFLOW_ASSIGN_OR_RETURN(EmLambdaResult em,
                             RunEmLambda(model, lambda, em0, unlabeled, layout,
                                         EmLambdaOptions{options.reentry_em_iterations, 1e-12, options.threads},
                                         callbacks.cancel));
    Eigen::VectorXd start(P + 1);
    start << em.theta_tilde, lambda;
    Result<Eigen::VectorXd> polished = CorrectAtFixedLambda(map, start, options.tracker.final_rel_tol,
                                                            options.tracker.final_abs_tol,
                                                            options.tracker.end_game_iterations);
    if (!polished.ok() && polished.status().code() != StatusCode::kNumerical) return polished.status();
    if (!polished.ok()) return std::optional<Eigen::VectorXd>();
    return std::optional<Eigen::VectorXd>(*std::move(polished));
  };
  Eigen::VectorXd start(P + 1);
  start << em0, 0.0;
  while (true) {
    NormalFlowOptions tracker_options = options.tracker;
    tracker_options.max_steps = options.tracker.max_steps - segment.steps_before;
    Result<NormalFlowResult> tracked =
        TrackNormalFlow(map, start, tracker_options, tracker_callbacks, resume ? &*resume : nullptr);
    resume.reset();
    // The tracker's own end game (a step from below lambda_end − end_gap to past lambda_end) can
    // fail where ∂ρ/∂Θ̃ is nearly singular at λ = 1; land from the last accepted point instead.
    if (!tracked.ok() && tracked.status().code() == StatusCode::kNumerical && result.points.size() > 1) return land();
    SEQFLOW_ASSIGN_OR_RETURN(NormalFlowResult track, std::move(tracked));
    if (track.stop == NormalFlowStop::kStopped && last.y[P] >= land_from) return land();
    if (track.stop == NormalFlowStop::kStepTooSmall && segment.reentries < options.max_reentries &&
        last.y[P] >= 0) {
      const double gap = ReentryGap(result.points, Project(last.y.head(P)).theta, last.y[P], options.reentry_gap);
      if (last.y[P] + gap >= land_from) return land();
      SEQFLOW_ASSIGN_OR_RETURN(std::optional<Eigen::VectorXd> entered, reenter(gap));
      if (entered) {
        segment.s_offset += last.s + (*entered - last.y).norm();
        segment.steps_before += track.steps;
        ++segment.reentries;
        result.reentries = segment.reentries;
        reentered = true;
        latest.reset();  // the earlier segment's state cannot continue this one
        start = *std::move(entered);
        continue;
      }
    }
    switch (track.stop) {
      case NormalFlowStop::kReachedEnd: result.stop = PathStop::kReachedEnd; break;
      case NormalFlowStop::kMaxSteps:
        result.stop = PathStop::kMaxSteps;
        if (checkpoints.keep_final && latest)
          checkpoints.keep_final(segment.steps_before + track.steps,
                                 [&] { return EncodeCurveState(*latest, last, warm, segment, result.points); });
        break;
      case NormalFlowStop::kStepTooSmall: result.stop = PathStop::kStepTooSmall; break;
      case NormalFlowStop::kStopped: result.stop = PathStop::kLeftInterval; break;
    }
    return result;
  }
}

}  // namespace seqflow

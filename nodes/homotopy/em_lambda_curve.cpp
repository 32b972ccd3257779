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

// Where the tracker's current run starts: the trace's start, or its latest re-entry. The
// tracker's arc length and step count restart there.
struct Segment {
  double s_offset = 0;  // the trace's arc length at the segment's first point
  int steps_before = 0;  // tracking steps of the earlier segments
  int reentries = 0;
};

StateTable<PathPoint> PathPointTable(Eigen::Index num_params) {
  return StateTable<PathPoint>("em_lambda curve")
      .F64(&PathPoint::s)
      .F64(&PathPoint::lambda)
      .F64(&PathPoint::dlambda_ds)
      .F64(&PathPoint::mu_max)
      .F64(&PathPoint::min_eig)
      .F64(&PathPoint::entropy)
      .F64(&PathPoint::residual)
      .F64(&PathPoint::step)
      .I64(&PathPoint::det_sign)
      .I64(&PathPoint::eigs_crossed)
      .I64(&PathPoint::crossed_exact)
      .I64(&PathPoint::corrector_iterations)
      .I64(&PathPoint::reentry)
      .Doubles(&PathPoint::theta_tilde)
      .Check([num_params](const PathPoint& p) { return p.theta_tilde.size() == num_params; });
}

// What a trace continues from after an accepted point, where the trace keeps it.
struct CurveState {
  NormalFlowState& tracker;
  NormalFlowPoint& last;  // the point the landing starts from (the segment's arc length)
  Eigen::VectorXd& warm;  // Lanczos's start for the next point's spectrum
  Segment& segment;
  std::vector<PathPoint>& points;
};

StateTable<CurveState> CurveStateTable(Eigen::Index num_params) {
  return StateTable<CurveState>("em_lambda curve")
      .Struct([](auto& c) -> auto& { return c.tracker; }, NormalFlowStateTable())
      .Struct([](auto& c) -> auto& { return c.last; }, NormalFlowPointTable())
      .Doubles([](auto& c) -> auto& { return c.warm; })
      .F64([](auto& c) -> auto& { return c.segment.s_offset; })
      .I64([](auto& c) -> auto& { return c.segment.steps_before; })
      .I64([](auto& c) -> auto& { return c.segment.reentries; })
      .Records([](auto& c) -> auto& { return c.points; }, PathPointTable(num_params), {.min = 1})
      .Check([num_params](const CurveState& c) {
        return c.tracker.current.y.size() == num_params + 1 && c.last.y.size() == num_params + 1;
      });
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

namespace {

// One trace of the curve: the tracker's segments from the start (or a resumed state), each point
// recorded with its figures, the landing on λ = lambda_end, and the re-entries where the step stalls.
class CurveTrace {
 public:
  CurveTrace(const PomLayout& layout, const HmmParams& frozen, const Eigen::VectorXd& em0, const IdSentences& unlabeled,
             const EmLambdaCurveOptions& options, const PathCallbacks& callbacks, const KernelCheckpoints& checkpoints)
      : layout_(layout),
        frozen_(frozen),
        em0_(em0),
        unlabeled_(unlabeled),
        options_(options),
        callbacks_(callbacks),
        checkpoints_(checkpoints),
        P_(layout.num_params()),
        map_(EmLambdaCurveMap(layout, frozen, em0, unlabeled, options, &result_.solve_products)),
        table_(CurveStateTable(P_)),
        // Past a fold the curve may head back through λ = 0: outside [0, 1] it no longer mixes L and U.
        land_from_(options.tracker.lambda_end - options.end_gap) {}

  Result<PathResult> Run() {
    std::optional<NormalFlowState> resume;
    if (checkpoints_.resume_from != nullptr) {
      NormalFlowState saved;
      CurveState into{saved, last_, warm_, segment_, result_.points};
      SEQFLOW_RETURN_IF_ERROR(table_.Decode(*checkpoints_.resume_from, into));
      resume = std::move(saved);
    }
    result_.reentries = segment_.reentries;
    latest_ = resume;
    const NormalFlowCallbacks tracker_callbacks = TrackerCallbacks();
    Eigen::VectorXd start(P_ + 1);
    start << em0_, 0.0;
    while (true) {
      NormalFlowOptions tracker_options = options_.tracker;
      tracker_options.max_steps = options_.tracker.max_steps - segment_.steps_before;
      Result<NormalFlowResult> tracked =
          TrackNormalFlow(map_, start, tracker_options, tracker_callbacks, resume ? &*resume : nullptr);
      resume.reset();
      // The tracker's own end game (a step from below lambda_end − end_gap to past lambda_end) can
      // fail where ∂ρ/∂Θ̃ is nearly singular at λ = 1; land from the last accepted point instead.
      if (!tracked.ok() && tracked.status().code() == StatusCode::kNumerical && result_.points.size() > 1)
        return Land();
      SEQFLOW_ASSIGN_OR_RETURN(NormalFlowResult track, std::move(tracked));
      if (track.stop == NormalFlowStop::kStopped && last_.y[P_] >= land_from_) return Land();
      if (track.stop == NormalFlowStop::kStepTooSmall && segment_.reentries < options_.max_reentries &&
          last_.y[P_] >= 0) {
        const double gap =
            ReentryGap(result_.points, Project(last_.y.head(P_)).theta, last_.y[P_], options_.reentry_gap);
        if (last_.y[P_] + gap >= land_from_) return Land();
        SEQFLOW_ASSIGN_OR_RETURN(std::optional<Eigen::VectorXd> entered, Reenter(gap));
        if (entered) {
          BeginSegment(track, *entered);
          start = *std::move(entered);
          continue;
        }
      }
      return Stop(track);
    }
  }

 private:
  // The tracker's points carry (Θ̃, λ) and the tangent; the figures of §5.2 are read at each.
  void Record(const NormalFlowPoint& q) {
    const Projected projected = Project(q.y.head(P_));
    EmJacobian em(layout_, frozen_, projected.theta, unlabeled_, options_.threads);
    std::unique_ptr<PathLinearization> lin = Linearize(options_.solver, std::move(em), q.y[P_], em0_, options_.linear);
    PathPoint p;
    p.s = segment_.s_offset + q.s;
    p.lambda = q.y[P_];
    p.dlambda_ds = q.tangent[P_];
    p.entropy = lin->em().covariance().mean_token_entropy();
    p.residual = (lin->residual() + (q.y.head(P_) - projected.theta)).cwiseAbs().maxCoeff();
    p.step = q.step;
    p.corrector_iterations = q.corrector_iterations;
    p.reentry = reentered_;
    reentered_ = false;
    if (options_.record_spectrum) {
      const JacobianSpectrum spectrum = lin->Spectrum(&warm_);
      p.mu_max = spectrum.mu_max;
      p.min_eig = p.lambda * spectrum.mu_max - 1;
      p.eigs_crossed = spectrum.num_crossed;
      p.det_sign = spectrum.num_crossed % 2 == 0 ? 1 : -1;
      p.crossed_exact = spectrum.exact;
      result_.spectrum_products += spectrum.iterations;
    }
    p.theta_tilde = projected.theta;
    result_.points.push_back(std::move(p));
    if (callbacks_.progress) callbacks_.progress(static_cast<int>(result_.points.size()) - 1, q.y[P_]);
  }

  NormalFlowCallbacks TrackerCallbacks() {
    NormalFlowCallbacks c;
    c.progress = [this](const NormalFlowPoint& q) {
      last_ = q;
      Record(q);
    };
    c.cancel = callbacks_.cancel;
    c.stop = [this](const NormalFlowPoint& q) { return q.y[P_] < 0 || q.y[P_] >= land_from_; };
    // The tracker's state after the last accepted point: where a larger max_steps continues.
    c.checkpoint = [this](const NormalFlowState& state) {
      if (checkpoints_.keep_final) latest_ = state;
      if (checkpoints_.offer)
        checkpoints_.offer([&] {
          NormalFlowState tracker = state;  // small beside the points
          return table_.Encode(CurveState{tracker, last_, warm_, segment_, result_.points});
        });
    };
    return c;
  }

  // Lands the last point on λ = lambda_end by Newton at fixed λ, or by EM_1 where Newton fails.
  Result<PathResult> Land() {
    Eigen::VectorXd start = last_.y;
    start[P_] = options_.tracker.lambda_end;
    Result<Eigen::VectorXd> landed = CorrectAtFixedLambda(map_, start, options_.tracker.final_rel_tol,
                                                          options_.tracker.final_abs_tol,
                                                          options_.tracker.end_game_iterations);
    if (!landed.ok() && landed.status().code() != StatusCode::kNumerical) return landed.status();
    if (!landed.ok()) {
      // Newton fails where I − J is singular at λ = 1 (μ_max → 1); EM_1 itself, warm-started at
      // the last point, still converges there (linearly): its point is recorded with its ‖ρ‖.
      const HmmParams model = layout_.ToHmm(Project(last_.y.head(P_)).theta, frozen_);
      SEQFLOW_ASSIGN_OR_RETURN(EmLambdaResult em,
                               RunEmLambda(model, options_.tracker.lambda_end, em0_, unlabeled_, layout_,
                                           EmLambdaOptions{options_.end_em_iterations, 0.0, options_.threads},
                                           callbacks_.cancel));
      landed = Eigen::VectorXd(P_ + 1);
      landed->head(P_) = em.theta_tilde;
      (*landed)[P_] = options_.tracker.lambda_end;
    }
    // The tangent at λ = 1 is ill-determined (μ_max → 1 there); the landed point keeps the last one.
    NormalFlowPoint end;
    end.s = last_.s + (*landed - last_.y).norm();
    end.y = *landed;
    end.tangent = last_.tangent;
    end.step = end.s - last_.s;
    Record(end);
    result_.stop = PathStop::kReachedEnd;
    return std::move(result_);
  }

  // The EM_λ fixed point at λ = last λ + `gap` that EM_λ's iteration reaches from the last point,
  // polished by Newton at fixed λ; nullopt where either fails.
  Result<std::optional<Eigen::VectorXd>> Reenter(double gap) {
    const double lambda = last_.y[P_] + gap;
    const HmmParams model = layout_.ToHmm(Project(last_.y.head(P_)).theta, frozen_);
    SEQFLOW_ASSIGN_OR_RETURN(EmLambdaResult em,
                             RunEmLambda(model, lambda, em0_, unlabeled_, layout_,
                                         EmLambdaOptions{options_.reentry_em_iterations, 1e-12, options_.threads},
                                         callbacks_.cancel));
    Eigen::VectorXd start(P_ + 1);
    start << em.theta_tilde, lambda;
    Result<Eigen::VectorXd> polished = CorrectAtFixedLambda(map_, start, options_.tracker.final_rel_tol,
                                                            options_.tracker.final_abs_tol,
                                                            options_.tracker.end_game_iterations);
    if (!polished.ok() && polished.status().code() != StatusCode::kNumerical) return polished.status();
    if (!polished.ok()) return std::optional<Eigen::VectorXd>();
    return std::optional<Eigen::VectorXd>(*std::move(polished));
  }

  // A re-entry at `entered` starts a segment after `track`'s.
  void BeginSegment(const NormalFlowResult& track, const Eigen::VectorXd& entered) {
    segment_.s_offset += last_.s + (entered - last_.y).norm();
    segment_.steps_before += track.steps;
    ++segment_.reentries;
    result_.reentries = segment_.reentries;
    reentered_ = true;
    latest_.reset();  // the earlier segment's state cannot continue this one
  }

  // The trace ends where `track` stopped; out of steps, it keeps the state a larger budget continues.
  PathResult Stop(const NormalFlowResult& track) {
    switch (track.stop) {
      case NormalFlowStop::kReachedEnd: result_.stop = PathStop::kReachedEnd; break;
      case NormalFlowStop::kMaxSteps:
        result_.stop = PathStop::kMaxSteps;
        if (checkpoints_.keep_final && latest_)
          checkpoints_.keep_final(segment_.steps_before + track.steps, [&] {
            return table_.Encode(CurveState{*latest_, last_, warm_, segment_, result_.points}).Join();
          });
        break;
      case NormalFlowStop::kStepTooSmall: result_.stop = PathStop::kStepTooSmall; break;
      case NormalFlowStop::kStopped: result_.stop = PathStop::kLeftInterval; break;
    }
    return std::move(result_);
  }

  const PomLayout& layout_;
  const HmmParams& frozen_;
  const Eigen::VectorXd& em0_;
  const IdSentences& unlabeled_;
  const EmLambdaCurveOptions& options_;
  const PathCallbacks& callbacks_;
  const KernelCheckpoints& checkpoints_;
  const Eigen::Index P_;
  PathResult result_;
  const HomotopyMap map_;
  const StateTable<CurveState> table_;
  const double land_from_;
  Eigen::VectorXd warm_;  // Lanczos's start for the next point's spectrum
  NormalFlowPoint last_;  // the last accepted point (the segment's arc length)
  Segment segment_;
  std::optional<NormalFlowState> latest_;  // the tracker's state after the last accepted point
  bool reentered_ = false;                 // the next recorded point is a re-entry's
};

}  // namespace

Result<PathResult> TraceEmLambdaCurve(const PomLayout& layout, const HmmParams& frozen, const Eigen::VectorXd& em0,
                                      const IdSentences& unlabeled, const EmLambdaCurveOptions& options,
                                      const PathCallbacks& callbacks, const KernelCheckpoints& checkpoints) {
  return CurveTrace(layout, frozen, em0, unlabeled, options, callbacks, checkpoints).Run();
}

}  // namespace seqflow

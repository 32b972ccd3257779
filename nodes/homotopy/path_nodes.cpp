// homotopy.em_lambda_path (Algorithm 1 and beyond) and homotopy.select (§5.2's criteria).
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "nodes/common/node_checkpoints.h"
#include "nodes/eval/score_model.h"
#include "nodes/homotopy/em_lambda_curve.h"
#include "nodes/homotopy/homotopy_nodes.h"
#include "nodes/homotopy/path_tracker.h"
#include "nodes/homotopy/probability_one_node.h"
#include "nodes/homotopy/select_point.h"
#include "nodes/homotopy/sequence_entropy.h"
#include "nodes/homotopy/singular_points.h"
#include "nodes/semi_supervised/em_lambda.h"
#include "nodes/semi_supervised/homotopy_path.h"
#include "nodes/semi_supervised/node_params.h"

namespace seqflow {


namespace {

// Dense algebra pays while the P x P Jacobian is small; beyond, Jacobian-vector products.
constexpr int kAutoDenseMaxParams = 650;  // measured crossover, bench/RESULTS.md

// The tangent and corrector algebra asked for; kAuto picks by the number of parameters.
enum class SolverChoice { kAuto, kDense, kMatrixFree };

// Which tracker follows the curve: HOMPACK's normal flow (em_lambda_curve.h: turns at folds and
// runs on to λ = 1) or the Euler predictor with the pseudo-arclength corrector (path_tracker.h).
enum class TrackerChoice { kNormalFlow, kEuler };

// What homotopy.em_lambda_path reads. tracker.solver and tracker.threads are the node's choice;
// step, max_step, max_steps, lambda_end and the linear solves serve both trackers.
struct PathNodeOptions {
  EmStartOptions start;
  PathOptions tracker;
  TrackerChoice tracker_kind = TrackerChoice::kNormalFlow;
  double arc_tol = 1e-6;  // normal flow: corrector tolerance (ARCRE = ARCAE) while tracking
  // The normal flow's own options (em_lambda_curve.h); its solver, linear solves, threads, steps and
  // tolerances are filled from `tracker` and arc_tol by CurveOptions.
  EmLambdaCurveOptions curve;
  SolverChoice solver = SolverChoice::kAuto;
  DecodeMethod decoder = DecodeMethod::kViterbi;
};

EmLambdaCurveOptions CurveOptions(const PathNodeOptions& declared, const PathOptions& euler) {
  EmLambdaCurveOptions o = declared.curve;
  o.solver = euler.solver;
  o.linear = euler.linear;
  o.threads = euler.threads;
  o.record_spectrum = euler.record_spectrum;
  o.tracker.first_step = euler.step;
  o.tracker.max_step = euler.max_step;
  o.tracker.max_steps = euler.max_steps;
  o.tracker.lambda_end = euler.lambda_end;
  o.tracker.arc_rel_tol = declared.arc_tol;
  o.tracker.arc_abs_tol = declared.arc_tol;
  return o;
}

PathOptions TrackerOptions(const PathNodeOptions& declared, int num_params, int threads) {
  PathOptions o = declared.tracker;
  const bool dense = declared.solver == SolverChoice::kDense ||
                     (declared.solver == SolverChoice::kAuto && num_params <= kAutoDenseMaxParams);
  o.solver = dense ? PathSolver::kDense : PathSolver::kMatrixFree;
  o.threads = threads;
  return o;
}

// What homotopy.select reads.
struct SelectNodeOptions {
  std::string criterion = "max_entropy";
  double lambda = 0.0;  // for criterion fixed
  DecodeMethod decoder = DecodeMethod::kViterbi;
};

const char* StopName(PathStop stop) {
  switch (stop) {
    case PathStop::kReachedEnd:
      return "reached lambda_end";
    case PathStop::kMaxSteps:
      return "max_steps";
    case PathStop::kStepTooSmall:
      return "step below min_step";
    case PathStop::kLeftInterval:
      return "lambda left [0, 1]";
  }
  return "?";
}

HomotopyPoint ToPoint(PathPoint&& p) {
  HomotopyPoint h;
  h.s = p.s;
  h.lambda = p.lambda;
  h.dlambda_ds = p.dlambda_ds;
  h.mu_max = p.mu_max;
  h.min_eig = p.min_eig;
  h.det_sign = p.det_sign;
  h.entropy = p.entropy;
  h.theta_tilde = std::move(p.theta_tilde);
  h.metrics["residual"] = p.residual;
  h.metrics["step"] = p.step;
  h.metrics["corrector_iterations"] = p.corrector_iterations;
  h.metrics["reentry"] = p.reentry ? 1 : 0;
  return h;
}

void ScoreAlongPath(NodeContext& ctx, const Corpus& test, DecodeMethod decoder, HomotopyPath& path) {
  for (size_t i = 0; i < path.points.size(); ++i) {
    auto scores = ValueOrThrow(ScoreChainModel(*path.ModelAt(i), test, decoder, ctx.threads()));
    for (const auto& [name, value] : scores) path.points[i].metrics["test." + name] = value;
  }
}

ArtifactPtr RunPath(NodeContext& ctx, const PathNodeOptions& declared) {
  SemiSupervisedInputs in = ReadSemiSupervisedInputs(ctx, /*with_test=*/true);
  if (in.data.unlabeled.empty()) throw StatusError(Status::Invalid("the unlabeled corpora are empty"));
  auto [path, em0] = StartPath("em_lambda_path", in, declared.start);
  PomLayout layout = path->Layout();
  PathOptions options = TrackerOptions(declared, layout.num_params(), ctx.threads());
  PathCallbacks callbacks;
  callbacks.progress = [&ctx](int step, double lambda) { ctx.Progress(step, 0, fmt::format("λ {:.4f}", lambda)); };
  callbacks.cancel = ctx.cancellation();
  // Checkpoints after each point of the normal-flow trace (a killed run resumes after the last
  // saved); a trace stopped by max_steps keeps its state for a larger max_steps to continue.
  const NodeCheckpoints checkpoints(ctx);
  PathResult result =
      declared.tracker_kind == TrackerChoice::kNormalFlow
          ? ValueOrThrow(TraceEmLambdaCurve(layout, in.start->params, em0, in.data.unlabeled,
                                            CurveOptions(declared, options), callbacks, checkpoints.kernel()))
          : ValueOrThrow(TraceEmLambdaPath(layout, in.start->params, em0, in.data.unlabeled, options, callbacks));
  const std::vector<SingularPoint> singular =
      FindSingularPoints(result.points, result.stop == PathStop::kStepTooSmall);
  // Points with λ < 0 (a curve that turned back past λ = 0) are outside the homotopy's domain.
  for (auto& p : result.points)
    if (p.lambda >= 0) path->points.push_back(ToPoint(std::move(p)));
  path->stop = StopName(result.stop);
  if (!singular.empty() && singular.back().stalled && result.stop == PathStop::kStepTooSmall)
    path->stop += fmt::format(" at a {} (lambda {:.6f})", SingularPointKindName(singular.back().kind),
                              singular.back().lambda);
  // H(y | x) per token on U at every point, for max_sequence_entropy (one forward-backward each).
  for (size_t i = 0; i < path->points.size(); ++i)
    path->points[i].metrics["sequence_entropy"] =
        ValueOrThrow(MeanSequenceEntropy(path->ModelAt(i)->params, in.data.unlabeled, ctx.threads()));
  if (in.test) ScoreAlongPath(ctx, *in.test, declared.decoder, *path);
  const HomotopyPoint& last = path->points.back();
  ctx.Metric("points", static_cast<double>(path->points.size()));
  ctx.Metric("lambda.final", last.lambda);
  ctx.Metric("s.final", last.s);
  // 0 when the trace stopped short of lambda_end (max_steps, a step below min_step, the curve back
  // below λ = 0); the artifact's `stop` says which.
  ctx.Metric("reached_end", result.stop == PathStop::kReachedEnd ? 1 : 0);
  double residual_max = 0;  // how far from the curve the worst point is: ‖F(Θ̃, λ)‖_∞
  for (const HomotopyPoint& p : path->points) residual_max = std::max(residual_max, p.metrics.at("residual"));
  ctx.Metric("residual.max", residual_max);
  ctx.Metric("reentries", result.reentries);
  // Where I − λ∇EM_1 was singular on the way (singular_points.h): the first one's λ, and how many.
  ctx.Metric("singular_points", static_cast<double>(singular.size()));
  ctx.Metric("folds", static_cast<double>(std::count_if(singular.begin(), singular.end(), [](const SingularPoint& p) {
               return p.kind == SingularPoint::Kind::kFold;
             })));
  if (!singular.empty()) ctx.Metric("singular.lambda", singular.front().lambda);
  ctx.Metric("params", layout.num_params());
  ctx.Metric("dense", options.solver == PathSolver::kDense ? 1 : 0);
  ctx.Attach(HomotopyPath::CsvTable().suffix, path->Csv());
  return path;
}

// Scores of every point on the dev corpus for the held-out criteria.
std::vector<double> DevScores(NodeContext& ctx, const HomotopyPath& path, const std::string& criterion,
                              DecodeMethod decoder) {
  auto dev = ctx.InOptional<Corpus>("dev");
  if (!dev) throw StatusError(Status::Invalid("criterion '" + criterion + "' needs a labeled corpus on port 'dev'"));
  std::vector<double> scores;
  for (size_t i = 0; i < path.points.size(); ++i) {
    auto model = path.ModelAt(i);
    if (criterion == "dev_likelihood") {
      scores.push_back(ValueOrThrow(MeanJointLogLikelihood(*model, *dev)));
    } else {
      auto s = ValueOrThrow(ScoreChainModel(*model, *dev, decoder, ctx.threads()));
      scores.push_back(criterion == "dev_f1" ? s["f1"] : s["accuracy"]);
    }
  }
  return scores;
}

ArtifactPtr RunSelect(NodeContext& ctx, const SelectNodeOptions& options) {
  auto path = ctx.In<HomotopyPath>("path");
  if (path->points.empty()) throw StatusError(Status::Invalid("the path has no points"));
  const std::string& name = options.criterion;
  size_t index;
  if (name.rfind("dev_", 0) == 0) {
    index = SelectPoint(path->points, Criterion::kBestScore, 0, DevScores(ctx, *path, name, options.decoder));
  } else {
    Criterion criterion = ValueOrThrow(ParseCriterion(name));
    double lambda = criterion == Criterion::kMle
                        ? static_cast<double>(path->num_unlabeled) / (path->num_labeled + path->num_unlabeled)
                        : options.lambda;
    index = SelectPoint(path->points, criterion, lambda);
  }
  const HomotopyPoint& chosen = path->points[index];
  ctx.Metric("lambda", chosen.lambda);
  ctx.Metric("s", chosen.s);
  ctx.Metric("point", static_cast<double>(index));
  auto model = path->ModelAt(index);
  ThrowIfError(ValidateHmmModel(*model, 1e-6));
  return model;
}

ParamTable<PathNodeOptions> PathParams() {
  using O = PathNodeOptions;
  auto tracker = [](auto member) { return At(&O::tracker, member); };
  auto curve = [](auto member) { return At(&O::curve, member); };
  auto flow = [](auto member) { return At(&O::curve, &EmLambdaCurveOptions::tracker, member); };
  ParamTable<O> table;
  table.Include(&O::start, EmStartParams())
      .Enum("tracker", &O::tracker_kind,
            {{"normal_flow", TrackerChoice::kNormalFlow}, {"euler", TrackerChoice::kEuler}},
            "normal_flow (HOMPACK, turns at folds, runs to lambda = 1) or euler (Algorithm 1 + corrector)")
      .Double("arc_tol", &O::arc_tol, "normal_flow: corrector tolerance on the Newton step, relative + absolute")
      .Greater(0)
      .Double("end_gap", curve(&EmLambdaCurveOptions::end_gap),
              "normal_flow: land on lambda_end by Newton at fixed lambda from within this")
      .Greater(0)
      .Double("step_gmres_tol", curve(&EmLambdaCurveOptions::step_gmres_tol),
              "normal_flow, matrix_free: relative residual of the Newton-step solves (inexact Newton; 0: gmres_tol)")
      .Min(0)
      .Bool("pseudo_arclength", flow(&NormalFlowOptions::pseudo_arclength),
            "normal_flow: Newton rows fixed to the step's predictor tangent (one tangent solve per step) instead of "
            "the tangent at each iterate (HOMPACK)")
      .Bool("chord", flow(&NormalFlowOptions::chord),
            "normal_flow with pseudo_arclength: every Newton step of a correction with its first iterate's Jacobian")
      .Int("gmres_recycle", curve(&EmLambdaCurveOptions::gmres_recycle),
           "normal_flow, matrix_free: GMRES directions kept between restarts and a chord's Newton solves (0: none)")
      .Min(0)
      .Bool("predicted_stop", flow(&NormalFlowOptions::predicted_stop),
            "normal_flow: accept a correction once the next Newton step is predicted within arc_tol")
      .Int("reentries", curve(&EmLambdaCurveOptions::max_reentries),
           "normal_flow: where the step falls below min_step short of lambda_end (a singular point), re-enter "
           "the curve at lambda + reentry_gap by EM_lambda's fixed point, at most this many times (0: stop there)")
      .Min(0)
      .Double("reentry_gap", curve(&EmLambdaCurveOptions::reentry_gap),
              "normal_flow: how far in lambda past a stalled point to re-enter")
      .Greater(0)
      .Bool("precondition", curve(&EmLambdaCurveOptions::precondition),
            "normal_flow, matrix_free: right-precondition GMRES by the per-word emission blocks")
      .Double("step", tracker(&PathOptions::step), "arc length of a step (the first one when adaptive)")
      .Greater(0)
      .Bool("adaptive", tracker(&PathOptions::adaptive), "grow / halve the step by the corrector's effort")
      .Double("min_step", tracker(&PathOptions::min_step), "stop when the adaptive step falls below this")
      .Greater(0)
      .Double("max_step", tracker(&PathOptions::max_step), "largest adaptive step")
      .Greater(0)
      .Int("corrector_iterations", tracker(&PathOptions::corrector_iterations),
           "euler: Newton corrector iterations; 0 = Euler only")
      .Min(0)
      .Double("corrector_tol", tracker(&PathOptions::corrector_tol),
              "euler: corrected when |F|_inf <= tol max(1, |theta|_inf)")
      .Greater(0)
      .Double("gmres_tol", At(&O::tracker, &PathOptions::linear, &LinearSolveOptions::gmres, &GmresOptions::rel_tol),
              "relative residual of the matrix-free solves")
      .Greater(0)
      .Double("eig_tol", At(&O::tracker, &PathOptions::linear, &LinearSolveOptions::lanczos, &LanczosOptions::rel_tol),
              "relative accuracy of mu_max (Lanczos)")
      .Greater(0)
      .Double("eig_value_tol",
              At(&O::tracker, &PathOptions::linear, &LinearSolveOptions::lanczos, &LanczosOptions::value_rel_tol),
              "Lanczos also stops when mu_max's error estimate is within this and its side of 1/lambda is certain "
              "(0: eig_tol alone)")
      .Min(0)
      .Int("max_steps", tracker(&PathOptions::max_steps), "steps at most")
      .Min(1)
      .Double("lambda_end", tracker(&PathOptions::lambda_end), "trace until lambda reaches this")
      .Greater(0)
      .Max(1)
      .Enum(
          "solver", &O::solver,
          {{"auto", SolverChoice::kAuto}, {"dense", SolverChoice::kDense}, {"matrix_free", SolverChoice::kMatrixFree}},
          "tangent and corrector algebra: dense P x P, or Jacobian-vector products + GMRES");
  AddDecoder(table, &O::decoder, "decoder for the test columns");
  return table;
}

KindSpec PathKind() {
  return KindSpec{"homotopy.em_lambda_path",
                  "7",
                  "Follows the EM_lambda fixed points from the supervised estimate (lambda = 0) to lambda = 1 by "
                  "arc length (Haffari & Sarkar 2008, Algorithm 1): HOMPACK's normal flow through the folds, or "
                  "Euler steps with a Newton corrector and adaptive steps; "
                  "records s, lambda, the spectrum of lambda*grad EM_1 - I and the unlabeled label entropy.",
                  "HomotopyPath",
                  SemiSupervisedPorts(true),
                  PathParams(),
                  RunPath}
      .Continuing({{"max_steps", true}});
}

ParamTable<SelectNodeOptions> SelectParams() {
  using O = SelectNodeOptions;
  ParamTable<O> table;
  table.String("criterion", &O::criterion, "how to choose lambda")
      .OneOf({"monotone", "min_eig", "first_singularity", "max_entropy", "max_sequence_entropy", "fixed", "mle",
              "last_lambda_zero", "dev_f1", "dev_accuracy", "dev_likelihood"})
      .Double("lambda", &O::lambda, "the allocation for criterion: fixed")
      .Min(0)
      .Max(1);
  AddDecoder(table, &O::decoder, "decoder for dev_f1 / dev_accuracy");
  return table;
}

KindSpec SelectKind() {
  return KindSpec{"homotopy.select",
                  "1",
                  "Picks one point of a path: monotone, min_eig, first_singularity, max_entropy (token marginals) or "
                  "max_sequence_entropy (H(y|x)) (Haffari & Sarkar 2008, 5.2), fixed lambda, "
                  "mle, or the best dev_f1 / dev_accuracy / dev_likelihood on a held-out corpus.",
                  "HmmModel",
                  {{"path", "HomotopyPath", false, false, "a homotopy path or an EM sweep"},
                   {"dev", "Corpus", false, true, "held-out labeled data for the dev_* criteria"}},
                  SelectParams(),
                  RunSelect};
}

}  // namespace

void RegisterHomotopyNodes(Registry& registry) {
  RegisterProbabilityOneNode(registry);
  registry.AddArtifactType<HomotopyPath>();
  registry.AddKind(PathKind()
                       .Needing({.parallel = true, .memory_mb = 2048})
                       .As(NodeRole::kTrainer)
                       .Attaching(HomotopyPath::CsvTable()));
  registry.AddKind(SelectKind()
                       .Needing({.parallel = true, .memory_mb = 2048})
                       .As(NodeRole::kSelector)
                       .ChoosingLambda("lambda")
                       .SelectingBy({"dev"}));
}

}  // namespace seqflow

#include "nodes/homotopy/probability_one_node.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <string>

#include "engine/api/node.h"
#include "nodes/common/node_checkpoints.h"
#include "nodes/hmm/classifier_model.h"
#include "nodes/homotopy/classifier_path.h"
#include "nodes/io/class_sequences.h"

namespace seqflow {
namespace {

const std::string kSequences(ClassSequences::kType);
const std::string kModel(ClassifierModel::kType);
const std::string kPath(ClassifierPathArtifact::kType);

ClassifierData ToData(const ClassSequences& labeled, const ClassSequences& unlabeled) {
  return ClassifierData{labeled.sequences, labeled.labels, unlabeled.sequences};
}

ArtifactPtr RunProbabilityOne(NodeContext& ctx, const ProbabilityOneOptions& options) {
  auto start = ctx.In<ClassifierModel>("start");
  auto labeled = ctx.In<ClassSequences>("labeled");
  auto unlabeled = ctx.In<ClassSequences>("unlabeled");
  ProbabilityOneOptions o = options;
  o.threads = ctx.threads();
  const HmmClassifier& m = start->model;
  auto out = std::make_shared<ClassifierPathArtifact>();
  out->num_classes = m.num_classes();
  out->num_states = m.num_states();
  out->num_symbols = std::max(m.num_symbols(), std::max(labeled->num_symbols, unlabeled->num_symbols));
  if (out->num_symbols != m.num_symbols())
    throw StatusError(Status::Invalid("homotopy.probability_one: the data has symbols the start model lacks"));
  out->num_labeled = static_cast<int64_t>(labeled->sequences.size());
  out->num_unlabeled = static_cast<int64_t>(unlabeled->sequences.size());
  const ClassifierLayout layout = out->Layout();
  const ClassifierData data = ToData(*labeled, *unlabeled);
  ClassifierEmOptions em0_options;
  em0_options.smoothing = o.smoothing;
  em0_options.need_em1 = false;
  const Eigen::VectorXd theta0 = ValueOrThrow(EvaluateClassifierEm(layout, layout.Stack(m), data, em0_options)).em0;
  NormalFlowCallbacks callbacks;
  callbacks.cancel = ctx.cancellation();
  callbacks.progress = [&ctx](const NormalFlowPoint& p) {
    const double lambda = p.y[p.y.size() - 1];
    ctx.Progress(static_cast<int64_t>(1000 * lambda), 1000, fmt::format("λ {:.4f}", lambda));
  };
  // Checkpoints after each point of the track (a killed run resumes after the last saved).
  const NodeCheckpoints checkpoints(ctx);
  out->path =
      ValueOrThrow(TraceProbabilityOne(layout, theta0, data, unlabeled->labels, o, callbacks, checkpoints.kernel()));
  if (out->path.stop != NormalFlowStop::kReachedEnd)
    throw StatusError(Status::Numerical(std::string("homotopy.probability_one: the path stopped before λ = 1 (") +
                                        NormalFlowStopName(out->path.stop) + ")"));
  const double lambda_mle =
      static_cast<double>(out->num_unlabeled) / static_cast<double>(out->num_labeled + out->num_unlabeled);
  out->mle_point = ValueOrThrow(PathPointAtLambda(layout, theta0, data, unlabeled->labels, o, out->path, lambda_mle));
  ctx.Metric("returns", out->path.returns);
  ctx.Metric("evaluations", out->path.evaluations);
  ctx.Metric("steps", out->path.steps);
  ctx.Metric("points", static_cast<double>(out->path.points.size()));
  ctx.Metric("final_segment_lambda", out->path.points[out->path.final_segment_start].lambda);
  ctx.Attach(ClassifierPathArtifact::CsvTable().suffix, out->Csv());
  return out;
}

ParamTable<ProbabilityOneOptions> ProbabilityOneParams() {
  using O = ProbabilityOneOptions;
  ParamTable<O> table;
  table.Double("smoothing", &O::smoothing, "pseudo-count of EM_0 and EM_1 (use hmm.classifier's)")
      .Greater(0)
      .Double("tanh_scale", &O::tanh_scale, "the 60 of tanh(60 lambda) in the map (19)")
      .Greater(0)
      .Double("return_threshold", &O::return_threshold, "a local minimum of lambda below this is a return to 0")
      .Greater(0)
      .Double("domain_slack", &O::domain_slack, "parameters below -slack are outside the map's domain")
      .Greater(0)
      .Double("arc_tol", At(&O::tracker, &NormalFlowOptions::arc_rel_tol), "relative corrector tolerance (ARCRE)")
      .Greater(0)
      .Double("arc_abs_tol", At(&O::tracker, &NormalFlowOptions::arc_abs_tol), "absolute corrector tolerance (ARCAE)")
      .Greater(0)
      .Double("max_step", At(&O::tracker, &NormalFlowOptions::max_step), "longest arc-length step (HMAX)")
      .Greater(0)
      .Int("max_steps", At(&O::tracker, &NormalFlowOptions::max_steps), "steps before giving up (LIMITD)")
      .Min(1);
  return table;
}

}  // namespace

void RegisterProbabilityOneNode(Registry& registry) {
  registry.AddArtifactType<ClassifierPathArtifact>();
  registry.AddKind(KindSpec{"homotopy.probability_one",
                            "2",
                            "Tracks the probability-one homotopy (19) from the start classifier's EM_0 fixed point to "
                            "the unsupervised lambda = 1 by HOMPACK-style normal flow; marks returns near lambda = 0 "
                            "and the final segment P_F; path.csv has lambda, entropy (Eq. 20) and the accuracy on "
                            "the unlabeled sequences' classes.",
                            kPath,
                            {PortSpec{"start", kModel, false, false, "the supervised classifier"},
                             PortSpec{"labeled", kSequences, false, false, "its labeled sequences"},
                             PortSpec{"unlabeled", kSequences, false, false, "sequences used without their classes"}},
                            ProbabilityOneParams(),
                            RunProbabilityOne}
                       .Attaching(ClassifierPathArtifact::CsvTable())
                       .Needing({.parallel = true, .memory_mb = 1024})
                       .Fitting({"labeled"})
                       .FittingInputs({"unlabeled"}));
}

}  // namespace seqflow

// Adapters between the engine and the multiview kernels.
#include "nodes/multiview/multiview_nodes.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <memory>
#include <string>

#include "engine/api/node.h"
#include "nodes/common/node_checkpoints.h"
#include "nodes/features/feature_views.h"
#include "nodes/features/template_params.h"
#include "nodes/multiview/hm_perceptron.h"
#include "nodes/multiview/hm_svm.h"
#include "nodes/multiview/multiview_model.h"

namespace seqflow {

namespace {

// ---- multiview.perceptron and multiview.hmsvm ----

using Clock = std::chrono::steady_clock;

// What both trainers read: the views, the labeled and (optional) unlabeled corpora as attribute
// ids, and the gold labels. `data` points into the other members.
struct TrainingInputs {
  std::shared_ptr<const FeatureViews> views;
  std::shared_ptr<const Corpus> labeled;
  std::vector<SentenceFeatures> labeled_x, unlabeled_x;
  std::vector<std::vector<int32_t>> labels;
  HmPerceptronData data;
};

std::unique_ptr<TrainingInputs> ReadTrainingInputs(NodeContext& ctx, const std::string& kind) {
  auto in = std::make_unique<TrainingInputs>();
  in->views = ctx.In<FeatureViews>("views");
  in->labeled = ctx.In<Corpus>("labeled");
  auto unlabeled = ctx.InOptional<Corpus>("unlabeled");
  if (!in->labeled->labeled())
    throw StatusError(Status::Invalid(kind + ": its labeled input " + in->labeled->source + " has no labels"));
  in->labeled_x = ValueOrThrow(in->views->dictionary->ExtractCorpus(*in->labeled, ctx.threads()));
  if (unlabeled) in->unlabeled_x = ValueOrThrow(in->views->dictionary->ExtractCorpus(*unlabeled, ctx.threads()));
  for (const Sentence& s : in->labeled->sentences) in->labels.push_back(s.labels);
  in->data = {&in->labeled_x, &in->labels, &in->unlabeled_x, &in->views->view,
              static_cast<int32_t>(in->labeled->label_names.size())};
  return in;
}

// The decodable model of trained weights: one transition matrix, the views' sum.
std::shared_ptr<MultiViewModel> ModelOf(const TrainingInputs& in, int views, HmPerceptronWeights weights) {
  auto model = std::make_shared<MultiViewModel>();
  model->label_names = in.labeled->label_names;
  model->encoding = in.labeled->encoding;
  model->dictionary = in.views->dictionary;
  model->views = views;
  model->view = views == 1 ? std::vector<int32_t>(in.views->view.size(), 0) : in.views->view;
  model->observation = std::move(weights.observation);
  model->transition = weights.transition[0];
  for (size_t v = 1; v < weights.transition.size(); ++v) model->transition += weights.transition[v];
  return model;
}

ArtifactPtr RunPerceptron(NodeContext& ctx, const HmPerceptronOptions& options) {
  const Clock::time_point start = Clock::now();
  const std::unique_ptr<TrainingInputs> in = ReadTrainingInputs(ctx, "multiview.perceptron");
  // Checkpoints after each epoch (a killed run resumes after the last saved); the state of the
  // last epoch is kept for a run with more epochs to continue from.
  const NodeCheckpoints checkpoints(ctx);
  HmPerceptronResult trained = ValueOrThrow(TrainHmPerceptron(
      in->data, options, [&](const HmPerceptronEpoch& e) {
        ctx.Progress(e.epoch, options.epochs,
                     fmt::format("errors {}  disagreements {}  C_u {:.3g}", e.labeled_errors, e.disagreements, e.c_u));
      },
      ctx.cancellation(), checkpoints.kernel()));
  const HmPerceptronEpoch& last = trained.epochs.back();
  ctx.Metric("labeled_errors", static_cast<double>(last.labeled_errors));
  ctx.Metric("disagreements", static_cast<double>(last.disagreements));
  ctx.Metric("train_seconds", std::chrono::duration<double>(Clock::now() - start).count());
  return ModelOf(*in, options.views, std::move(trained.weights));
}

const char* ScheduleName(UnlabeledWeightSchedule s) {
  return s == UnlabeledWeightSchedule::kConstant ? "constant" : "exponential";
}

// C_u's schedule, declared once for the perceptron and the HM-SVM.
ParamTable<UnlabeledWeightGrowth> GrowthParams() {
  using O = UnlabeledWeightGrowth;
  ParamTable<O> table;
  table
      .Enum("schedule", &O::schedule, {UnlabeledWeightSchedule::kConstant, UnlabeledWeightSchedule::kExponential},
            ScheduleName, "C_u constant, or rising exponentially to c_u at epoch `ramp`")
      .Int("ramp", &O::ramp, "epoch at which the exponential schedule reaches c_u")
      .Min(1)
      .Double("c_u_start", &O::c_u_start, "exponential schedule: C_u at epoch 1 as a fraction of c_u")
      .Greater(0)
      .Max(1);
  return table;
}

ParamTable<HmPerceptronOptions> PerceptronParams() {
  using O = HmPerceptronOptions;
  ParamTable<O> table;
  table.Int("views", &O::views, "2: multi-view (Table 1); 1: the HM perceptron on the concatenated views")
      .Min(1)
      .Max(2)
      .Int("epochs", &O::epochs, "passes over labeled and unlabeled sequences (t_max)")
      .Min(1)
      .Double("c_u", &O::c_u, "weight C_u of an update on an unlabeled disagreement (Eq. 16)")
      .Min(0)
      .Max(1)
      .Include(&O::growth, GrowthParams())
      .Bool("averaged", &O::averaged, "return the average of the weights over all sequence visits");
  return table;
}

KindSpec PerceptronKind() {
  return KindSpec{
      "multiview.perceptron",
      "1",
      "Multi-view hidden Markov perceptron (Brefeld et al. 2005, Table 1): each view decodes every sequence; labeled "
      "errors update that view (Eq. 15), unlabeled disagreements sway each view toward its peer with weight C_u "
      "(Eq. 16). The model decodes by the joint decision f1 + f2 (Eq. 17). Linear kernel, so primal weights.",
      std::string(MultiViewModel::kType),
      {PortSpec{"views", std::string(FeatureViews::kType), false, false, "attribute dictionary and views"},
       PortSpec{"labeled", std::string(Corpus::kType), false, false, "labeled training sentences"},
       PortSpec{"unlabeled", std::string(Corpus::kType), false, true, "unlabeled sentences (views: 2)"}},
      PerceptronParams(),
      RunPerceptron}
      .Continuing({{"epochs", true}});
}

// ---- multiview.hmsvm ----

// Which decision function the trained HM-SVM model keeps: the joint f¹ + f² (Eq. 17), or one
// view's f^v alone (the other view's weights zeroed), to measure each view by itself.
enum class SvmDecision { kJoint, kView1, kView2 };

const char* SvmDecisionName(SvmDecision d) {
  return d == SvmDecision::kJoint ? "joint" : d == SvmDecision::kView1 ? "view1" : "view2";
}

const char* HmSvmFormName(HmSvmForm f) { return f == HmSvmForm::kPrimal ? "primal" : "dual"; }

struct HmSvmNodeOptions {
  HmSvmOptions svm;
  SvmDecision decision = SvmDecision::kJoint;
};

// ||w^v||: view v's observation rows and transition block.
double ViewNorm(const HmPerceptronWeights& w, const std::vector<int32_t>* view, int v) {
  double s = w.transition[static_cast<size_t>(v)].squaredNorm();
  for (Eigen::Index a = 0; a < w.observation.rows(); ++a)
    if (view == nullptr || (*view)[static_cast<size_t>(a)] == v) s += w.observation.row(a).squaredNorm();
  return std::sqrt(s);
}

ArtifactPtr RunHmSvm(NodeContext& ctx, const HmSvmNodeOptions& node_options) {
  const HmSvmOptions& options = node_options.svm;
  const Clock::time_point start = Clock::now();
  const std::unique_ptr<TrainingInputs> in = ReadTrainingInputs(ctx, "multiview.hmsvm");
  if (node_options.decision != SvmDecision::kJoint && options.views != 2)
    throw StatusError(Status::Invalid("multiview.hmsvm: decision view1/view2 needs views: 2"));
  // Checkpoints after each epoch and the last epoch's state kept, as multiview.perceptron's.
  const NodeCheckpoints checkpoints(ctx);
  HmSvmResult trained = ValueOrThrow(TrainHmSvm(
      in->data, options, [&](const HmSvmEpoch& e) {
        ctx.Progress(e.epoch, options.epochs,
                     fmt::format("violations {}  disagreements {}  C_u {:.3g}", e.margin_violations,
                                 e.disagreements, e.c_u));
      }, ctx.cancellation(),
      checkpoints.kernel()));
  // Over every epoch, also those a resumed run took from its state.
  int64_t unlabeled_pseudo = 0;
  for (const HmSvmEpoch& e : trained.epochs) unlabeled_pseudo += e.unlabeled_pseudo;
  const HmSvmEpoch& last = trained.epochs.back();
  ctx.Metric("margin_violations", static_cast<double>(last.margin_violations));
  ctx.Metric("disagreements", static_cast<double>(last.disagreements));
  ctx.Metric("support_sequences", static_cast<double>(last.support_sequences));
  ctx.Metric("train_seconds", std::chrono::duration<double>(Clock::now() - start).count());
  if (options.views == 2) {
    ctx.Metric("first_disagreements", static_cast<double>(trained.epochs.front().disagreements));
    ctx.Metric("unlabeled_pseudo_last", static_cast<double>(last.unlabeled_pseudo));
    ctx.Metric("unlabeled_pseudo_total", static_cast<double>(unlabeled_pseudo));
    for (int v = 0; v < 2; ++v) {
      ctx.Metric(fmt::format("view{}_norm", v + 1), ViewNorm(trained.weights, &in->views->view, v));
      ctx.Metric(fmt::format("view{}_unlabeled_margin", v + 1), last.unlabeled_margin[static_cast<size_t>(v)]);
    }
  }
  if (node_options.decision != SvmDecision::kJoint) {
    const int dropped = node_options.decision == SvmDecision::kView1 ? 1 : 0;
    for (Eigen::Index a = 0; a < trained.weights.observation.rows(); ++a)
      if (in->views->view[static_cast<size_t>(a)] == dropped) trained.weights.observation.row(a).setZero();
    trained.weights.transition[static_cast<size_t>(dropped)].setZero();
  }
  return ModelOf(*in, options.views, std::move(trained.weights));
}

ParamTable<HmSvmOptions> HmSvmParams() {
  using O = HmSvmOptions;
  ParamTable<O> table;
  table.Int("views", &O::views, "2: multi-view (Tables 2-3); 1: the HM-SVM on the concatenated views")
      .Min(1)
      .Max(2)
      .Int("norm", &O::norm, "1: linear slack penalty (Eq. 26); 2: quadratic (Eq. 27)")
      .Min(1)
      .Max(2)
      .Double("c", &O::c, "C, the trade-off of margin and slack")
      .Greater(0)
      .Double("c_u", &O::c_u, "C_u, the weight of the unlabeled examples' slack")
      .Min(0)
      .Include(&O::growth, GrowthParams())
      .Int("r_max", &O::r_max, "repetitions without consensus on an unlabeled example (Table 3)")
      .Min(1)
      .Int("epochs", &O::epochs, "passes over all examples")
      .Min(1)
      .Int("max_working_set", &O::max_working_set, "pseudo sequences Table 2 adds to one example at most per visit")
      .Min(1)
      .Enum("form", &O::form, {HmSvmForm::kPrimal, HmSvmForm::kDual}, HmSvmFormName,
            "primal: keep w (an epoch is linear in the examples); dual: the paper's, scores as sums over the "
            "support sequences (same function, an epoch quadratic in the unlabeled pool)");
  return table;
}

ParamTable<HmSvmNodeOptions> HmSvmNodeParams() {
  using O = HmSvmNodeOptions;
  ParamTable<O> table;
  table.Include(&O::svm, HmSvmParams())
      .Enum("decision", &O::decision, {SvmDecision::kJoint, SvmDecision::kView1, SvmDecision::kView2}, SvmDecisionName,
            "joint: f1 + f2 (Eq. 17); view1 / view2: that view's f alone (views: 2)");
  return table;
}

KindSpec HmSvmKind() {
  return KindSpec{
      "multiview.hmsvm",
      "1",
      "Multi-view hidden Markov SVM (Brefeld et al. 2005, Eq. 25-27): per example and view, a working set of "
      "pseudo sequences and its QP (Table 2 for labeled examples; Table 3 for unlabeled ones, whose target is the "
      "peer view's prediction, weighted by the peer's margin); 1- or 2-norm slacks. Linear kernel, primal weights; "
      "the model decodes by f1 + f2.",
      std::string(MultiViewModel::kType),
      {PortSpec{"views", std::string(FeatureViews::kType), false, false, "attribute dictionary and views"},
       PortSpec{"labeled", std::string(Corpus::kType), false, false, "labeled training sentences"},
       PortSpec{"unlabeled", std::string(Corpus::kType), false, true, "unlabeled sentences (views: 2)"}},
      HmSvmNodeParams(),
      RunHmSvm}
      .Continuing({{"epochs", true}});
}

}  // namespace

void RegisterMultiviewNodes(Registry& registry) {
  registry.AddArtifactType<MultiViewModel>({std::string(ChainModel::kInterface)});
  registry.AddKind(PerceptronKind()
                       .Needing({.parallel = true, .memory_mb = 2048})
                       .As(NodeRole::kTrainer)
                       .Fitting({"labeled"})
                       .FittingInputs({"unlabeled"}));
  registry.AddKind(HmSvmKind()
                       .Needing({.parallel = true, .memory_mb = 2048})
                       .As(NodeRole::kTrainer)
                       .Fitting({"labeled"})
                       .FittingInputs({"unlabeled"}));
}

}  // namespace seqflow

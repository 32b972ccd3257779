// Adapters between the engine and the classifier kernels.
#include "nodes/classifier/classifier_nodes.h"

#include <functional>
#include <optional>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "engine/api/node.h"
#include "engine/api/param_table.h"
#include "engine/api/significance.h"
#include "engine/base/hash.h"
#include "nodes/classifier/classifier_artifacts.h"
#include "nodes/classifier/ji_experiment.h"
#include "nodes/common/node_checkpoints.h"
#include "nodes/semi_supervised/homotopy_path.h"
#include "nodes/homotopy/select_point.h"

namespace seqflow {
namespace {

const std::string kSequences(ClassSequences::kType);
const std::string kModel(ClassifierModel::kType);
const std::string kPath(ClassifierPathArtifact::kType);

// --- read.class_sequences -------------------------------------------------------------------

struct ReadOptions {
  std::string path;
};

ArtifactPtr RunRead(NodeContext& ctx, const ReadOptions& options) {
  const std::string text = ValueOrThrow(ctx.ReadFile(options.path));
  auto data = ValueOrThrow(ParseClassSequences(text, options.path));
  ctx.Metric("sequences", static_cast<double>(data->sequences.size()));
  ctx.Metric("classes", data->num_classes);
  ctx.Metric("symbols", data->num_symbols);
  return data;
}

ParamTable<ReadOptions> ReadParams() {
  ParamTable<ReadOptions> table;
  table.Path("path", &ReadOptions::path, "the file: one sequence a line, class<TAB>symbol ids");
  return table;
}

// --- split.classes --------------------------------------------------------------------------

enum class SplitPart { kLabeled, kRest };
const char* SplitPartName(SplitPart p) { return p == SplitPart::kLabeled ? "labeled" : "rest"; }

struct SplitClassesOptions {
  int per_class = 10;
  SplitPart part = SplitPart::kLabeled;
  int seed = 1;
};

ArtifactPtr RunSplitClasses(NodeContext& ctx, const SplitClassesOptions& options) {
  auto data = ctx.In<ClassSequences>("data");
  Rng rng = ShardRng(static_cast<uint64_t>(options.seed), 1000);
  const std::vector<bool> labeled =
      ValueOrThrow(ChooseLabeledPerClass(data->labels, data->num_classes, options.per_class, rng));
  auto out = std::make_shared<ClassSequences>();
  out->source = data->source;
  out->num_classes = data->num_classes;
  out->num_symbols = data->num_symbols;
  for (size_t i = 0; i < labeled.size(); ++i) {
    if (labeled[i] != (options.part == SplitPart::kLabeled)) continue;
    out->sequences.push_back(data->sequences[i]);
    out->labels.push_back(data->labels[i]);
  }
  ctx.Metric("sequences", static_cast<double>(out->sequences.size()));
  return out;
}

ParamTable<SplitClassesOptions> SplitClassesParams() {
  using O = SplitClassesOptions;
  ParamTable<O> table;
  table.Int("per_class", &O::per_class, "sequences of each class that are labeled")
      .Min(1)
      .Enum("part", &O::part, {SplitPart::kLabeled, SplitPart::kRest}, SplitPartName,
            "labeled: the chosen sequences; rest: the others (keeping their classes for scoring)")
      .Int("seed", &O::seed, "seed of the choice; the same seed gives complementary parts");
  return table;
}

// --- hmm.classifier -------------------------------------------------------------------------

ArtifactPtr RunClassifier(NodeContext& ctx, const ClassifierTrainOptions& options) {
  auto data = ctx.In<ClassSequences>("data");
  ClassifierTrainOptions o = options;
  o.threads = ctx.threads();
  // Checkpoints after each restart (a killed run resumes after the last saved).
  const NodeCheckpoints checkpoints(ctx);
  const ClassifierTrainResult r = ValueOrThrow(TrainHmmClassifier(data->sequences, data->labels, data->num_classes,
                                                                  data->num_symbols, o, ctx.cancellation(), checkpoints.kernel()));
  for (size_t y = 0; y < r.best_restart.size(); ++y)
    ctx.Metric("objective." + std::to_string(y), r.restart_objectives[y][r.best_restart[y]]);
  ctx.Metric("iterations", r.iterations);
  auto model = std::make_shared<ClassifierModel>();
  model->model = r.model;
  return model;
}

ParamTable<ClassifierTrainOptions> ClassifierParams() {
  using O = ClassifierTrainOptions;
  ParamTable<O> table;
  table.Int("states", &O::num_states, "hidden states of each class's HMM")
      .Min(1)
      .Int("restarts", &O::restarts, "Baum-Welch restarts per class; the best MAP objective is kept")
      .Min(1)
      .Int("seed", &O::seed, "seed of the random starts")
      .Int("max_iterations", &O::max_iterations, "EM iterations per restart")
      .Min(1)
      .Double("tol", &O::tol, "stop when the objective changes by less than tol (1 + |objective|)")
      .Min(0)
      .Double("smoothing", &O::smoothing, "pseudo-count on every parameter (Dirichlet MAP)")
      .Greater(0)
      .Double("start_floor", &O::start_floor, "mix the random starts this much with uniform rows")
      .Min(0)
      .Max(1);
  return table;
}

// --- homotopy.probability_one ---------------------------------------------------------------

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
  out->path = ValueOrThrow(TraceProbabilityOne(layout, theta0, data, unlabeled->labels, o, callbacks, checkpoints.kernel()));
  if (out->path.stop != NormalFlowStop::kReachedEnd)
    throw StatusError(Status::Numerical(std::string("homotopy.probability_one: the path stopped before λ = 1 (") +
                                        NormalFlowStopName(out->path.stop) + ")"));
  const double lambda_mle =
      static_cast<double>(out->num_unlabeled) / static_cast<double>(out->num_labeled + out->num_unlabeled);
  out->mle_point =
      ValueOrThrow(PathPointAtLambda(layout, theta0, data, unlabeled->labels, o, out->path, lambda_mle));
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

// --- classifier.select ----------------------------------------------------------------------

struct SelectOptions {
  std::string criterion = "max_entropy";
  double lambda = 0;
};

ArtifactPtr RunSelect(NodeContext& ctx, const SelectOptions& options) {
  auto path = ctx.In<ClassifierPathArtifact>("path");
  const std::vector<ClassifierPathPoint>& pts = path->path.points;
  const ClassifierPathPoint* chosen = nullptr;
  if (options.criterion == "start") {
    chosen = &pts.front();
  } else if (options.criterion == "mle") {
    chosen = &path->mle_point;
  } else {
    std::vector<HomotopyPoint> points(pts.size());
    for (size_t k = 0; k < pts.size(); ++k) {
      points[k].s = pts[k].s;
      points[k].lambda = pts[k].lambda;
      points[k].dlambda_ds = pts[k].dlambda_ds;
      points[k].entropy = pts[k].entropy;
      points[k].metrics["final_segment"] = k >= path->path.final_segment_start ? 1.0 : 0.0;
    }
    const Criterion criterion = ValueOrThrow(ParseCriterion(options.criterion));
    chosen = &pts[SelectPoint(points, criterion, options.lambda)];
  }
  auto model = std::make_shared<ClassifierModel>();
  model->model = ValueOrThrow(path->Layout().Normalize(chosen->theta_tilde));
  model->lambda = chosen->lambda;
  ctx.Metric("lambda", chosen->lambda);
  ctx.Metric("entropy", chosen->entropy);
  return model;
}

ParamTable<SelectOptions> SelectParams() {
  using O = SelectOptions;
  ParamTable<O> table;
  table.String("criterion", &O::criterion, "start, last_lambda_zero, mle (U/(L+U) on P_F), max_entropy (Eq. 20 on "
                                          "P_F) or fixed")
      .OneOf({"start", "last_lambda_zero", "mle", "max_entropy", "fixed"})
      .Double("lambda", &O::lambda, "the allocation for criterion: fixed")
      .Min(0)
      .Max(1);
  return table;
}

// --- eval.classes ---------------------------------------------------------------------------

struct EvalOptions {
  int samples = 10000;
  int seed = 1;
};

std::vector<int32_t> Predict(const ClassifierModel& m, const ClassSequences& gold, int threads) {
  return ArgmaxClasses(ValueOrThrow(ClassPosteriors(m.model.prior, ClassLogLikelihoods(m.model, gold.sequences,
                                                                                          threads))));
}

std::vector<SentenceStats> PerSequence(const std::vector<int32_t>& predicted, const ClassSequences& gold) {
  std::vector<SentenceStats> out(predicted.size());
  for (size_t i = 0; i < predicted.size(); ++i) {
    out[i].tokens = 1;
    out[i].correct_tokens = predicted[i] == gold.labels[i];
  }
  return out;
}

std::string Fingerprint(const ClassSequences& gold) {
  Hasher h;
  h.AddU64(gold.sequences.size());
  for (size_t i = 0; i < gold.sequences.size(); ++i) {
    h.AddU64(static_cast<uint64_t>(gold.labels[i]));
    h.AddU64(gold.sequences[i].size());
    for (int32_t s : gold.sequences[i]) h.AddU64(static_cast<uint64_t>(s));
  }
  return h.HexDigest();
}

ArtifactPtr RunEvalClasses(NodeContext& ctx, const EvalOptions& options) {
  auto gold = ctx.In<ClassSequences>("gold");
  auto predicted_model = ctx.In<ClassifierModel>("predicted");
  const int C = std::max(gold->num_classes, predicted_model->model.num_classes());
  const std::vector<int32_t> predicted = Predict(*predicted_model, *gold, ctx.threads());
  Eigen::MatrixXd confusion = Eigen::MatrixXd::Zero(C, C);  // [gold x predicted]
  for (size_t i = 0; i < predicted.size(); ++i) confusion(gold->labels[i], predicted[i]) += 1;
  auto metrics = std::make_shared<Metrics>();
  auto& v = metrics->values;
  v["accuracy"] = confusion.trace() / static_cast<double>(predicted.size());
  v["sequences"] = static_cast<double>(predicted.size());
  for (int c = 0; c < C; ++c) {
    const double guessed = confusion.col(c).sum(), actual = confusion.row(c).sum();
    v["precision." + std::to_string(c)] = guessed > 0 ? confusion(c, c) / guessed : 0.0;
    v["recall." + std::to_string(c)] = actual > 0 ? confusion(c, c) / actual : 0.0;
    for (int d = 0; d < C; ++d) v["confusion." + std::to_string(c) + "." + std::to_string(d)] = confusion(c, d);
  }
  std::vector<SentenceStats> rows = PerSequence(predicted, *gold);
  if (auto baseline = ctx.InOptional<ClassifierModel>("baseline")) {
    PairedScores paired{rows, PerSequence(Predict(*baseline, *gold, ctx.threads()), *gold)};
    SignificanceOptions so;
    so.samples = options.samples;
    so.shuffle_seed = static_cast<uint64_t>(options.seed);
    const SignificanceResult sig = ValueOrThrow(PairedSignificance({paired}, so));
    const size_t acc = static_cast<size_t>(Statistic::kAccuracy);
    v["baseline.accuracy"] = sig.b[acc];
    v["p_value"] = sig.p[acc];
    v["relative_improvement"] = sig.b[acc] > 0 ? (sig.a[acc] - sig.b[acc]) / sig.b[acc] : 0.0;
  }
  ctx.Attach("sentences.csv", FormatSentenceStats({Fingerprint(*gold), false, std::move(rows)}));
  for (const auto& [name, value] : v) ctx.Metric(name, value);
  return metrics;
}

ParamTable<EvalOptions> EvalParams() {
  using O = EvalOptions;
  ParamTable<O> table;
  table.Int("samples", &O::samples, "shuffles of the paired randomization test against `baseline`")
      .Min(1)
      .Int("seed", &O::seed, "seed of the shuffles");
  return table;
}

// --- registration ---------------------------------------------------------------------------

std::vector<KindSpec> Kinds() {
  std::vector<KindSpec> kinds;
  kinds.push_back(KindSpec{"read.class_sequences", "1",
                           "Reads sequences with their classes, one a line: class<TAB>symbol ids separated by spaces "
                           "(seqflow-datagen --ji-case writes them). Classes and symbols are counted from the file.",
                           kSequences, {}, ReadParams(), RunRead});
  kinds.push_back(KindSpec{"split.classes", "1",
                           "Chooses per_class sequences of every class with a seeded draw; part labeled keeps them, "
                           "part rest the others (with their classes, which only evaluators read).",
                           kSequences,
                           {PortSpec{"data", kSequences, false, false, "the pool"}},
                           SplitClassesParams(), RunSplitClasses});
  kinds.push_back(KindSpec{"hmm.classifier",
                           "1",
                           "One discrete HMM per class and class priors (Ji, Watson & Carin Eq. 11-12), trained by "
                           "Baum-Welch per class with seeded restarts, the best MAP objective kept.",
                           kModel,
                           {PortSpec{"data", kSequences, false, false, "labeled sequences"}},
                           ClassifierParams(),
                           RunClassifier}
                      .As(NodeRole::kTrainer)
                      .Needing({.parallel = true, .memory_mb = 1024})
                      .Fitting({"data"}));
  kinds.push_back(KindSpec{"homotopy.probability_one",
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
  kinds.push_back(KindSpec{"classifier.select", "1",
                           "Picks the classifier at one point of a probability-one path: start, last_lambda_zero "
                           "(P_F's start), mle (lambda = U/(L+U) on P_F, corrected onto the curve), max_entropy "
                           "(Eq. 20 on P_F) or fixed.",
                           kModel,
                           {PortSpec{"path", kPath, false, false, "a homotopy.probability_one path"}},
                           SelectParams(), RunSelect}
                      .As(NodeRole::kSelector)
                      .ChoosingLambda("lambda"));
  kinds.push_back(KindSpec{"eval.classes",
                           "1",
                           "Accuracy, per-class precision and recall and the confusion matrix of a classifier on "
                           "classified sequences; with `baseline`, a paired randomization test of the accuracies.",
                           std::string(Metrics::kType),
                           {PortSpec{"predicted", kModel, false, false, "the classifier scored"},
                            PortSpec{"gold", kSequences, false, false, "sequences with their true classes"},
                            PortSpec{"baseline", kModel, false, true, "a second classifier to test against"}},
                           EvalParams(),
                           RunEvalClasses}
                      .As(NodeRole::kEvaluator, {"accuracy"})
                      .Needing({.parallel = true, .memory_mb = 1024})
                      .Attaching(AttachmentSpec::SentenceCounts("sentences.csv")));
  return kinds;
}

}  // namespace

void RegisterClassifierNodes(Registry& registry) {
  registry.AddArtifactType<ClassSequences>();
  registry.AddArtifactType<ClassifierModel>();
  registry.AddArtifactType<ClassifierPathArtifact>();
  for (KindSpec& kind : Kinds()) registry.AddKind(std::move(kind));
}

}  // namespace seqflow

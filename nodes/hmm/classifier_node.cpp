#include "nodes/hmm/classifier_node.h"

#include <memory>
#include <string>

#include "engine/api/node.h"
#include "nodes/common/node_checkpoints.h"
#include "nodes/hmm/classifier_model.h"
#include "nodes/hmm/classifier_training.h"
#include "nodes/io/class_sequences.h"

namespace seqflow {
namespace {

const std::string kSequences(ClassSequences::kType);
const std::string kModel(ClassifierModel::kType);

ArtifactPtr RunClassifier(NodeContext& ctx, const ClassifierTrainOptions& options) {
  auto data = ctx.In<ClassSequences>("data");
  ClassifierTrainOptions o = options;
  o.threads = ctx.threads();
  // Checkpoints after each restart (a killed run resumes after the last saved).
  const NodeCheckpoints checkpoints(ctx);
  const ClassifierTrainResult r =
      ValueOrThrow(TrainHmmClassifier(data->sequences, data->labels, data->num_classes, data->num_symbols, o,
                                      ctx.cancellation(), checkpoints.kernel()));
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

}  // namespace

void RegisterClassifierNode(Registry& registry) {
  registry.AddArtifactType<ClassifierModel>();
  registry.AddKind(KindSpec{"hmm.classifier",
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
}

}  // namespace seqflow

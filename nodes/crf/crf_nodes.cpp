// crf.train: the adapter from a FeatureSet to the CRF likelihood and L-BFGS.
#include "nodes/crf/crf_nodes.h"

#include <fmt/format.h>

#include <chrono>

#include "engine/api/node.h"
#include "nodes/crf/crf_model.h"
#include "nodes/crf/crf_train.h"
#include "nodes/crf/hybrid_nodes.h"

namespace seqflow {
namespace {

using Clock = std::chrono::steady_clock;

LbfgsOptions OptimizerOptions(const Params& p, int threads) {
  LbfgsOptions o;
  o.max_iterations = static_cast<int>(p.GetInt("max_iterations"));
  o.delta = p.GetDouble("delta");
  o.past = static_cast<int>(p.GetInt("past"));
  o.gradient_tolerance = p.GetDouble("gradient_tolerance");
  o.memory = static_cast<int>(p.GetInt("memory"));
  o.float_history = p.GetBool("float_history");
  o.threads = threads;
  return o;
}

void CheckLabeled(const FeatureSet& data) {
  if (data.labels.empty() || data.label_names.empty())
    throw StatusError(Status::Invalid("crf.train needs labeled sentences; its FeatureSet has no labels"));
  for (size_t n = 0; n < data.sentences.size(); ++n)
    if (data.sentences[n].size() == 0)
      throw StatusError(Status::Invalid(fmt::format("sentence {} of the training data is empty", n + 1)));
}

ArtifactPtr RunTrain(NodeContext& ctx) {
  auto data = ctx.In<FeatureSet>("data");
  CheckLabeled(*data);
  CrfTrainOptions options;
  options.sigma2 = ctx.params().GetDouble("sigma2");
  options.lbfgs = OptimizerOptions(ctx.params(), ctx.threads());
  options.merge_duplicates = ctx.params().GetBool("merge_duplicates");
  const Clock::time_point start = Clock::now();
  std::string trace = "iteration,objective,gradient_norm,step,evaluations,seconds\n";
  auto record_iteration = [&](const LbfgsIteration& it) {
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    trace += fmt::format("{},{:.12g},{:.6g},{:.6g},{},{:.3f}\n", it.iteration, it.objective, it.gradient_norm, it.step,
                         it.evaluations, seconds);
    ctx.Progress(it.iteration, options.lbfgs.max_iterations);
  };
  CrfTrainResult trained = ValueOrThrow(TrainCrf(data->sentences, data->labels, data->dictionary->num_attributes(),
                                                 static_cast<int32_t>(data->label_names.size()), options,
                                                 record_iteration, ctx.cancellation()));
  const LbfgsResult& r = trained.optimizer;
  ctx.Metric("iterations", r.iterations);
  ctx.Metric("evaluations", r.evaluations);
  ctx.Metric("objective", r.objective);
  ctx.Metric("converged", r.stop == LbfgsStop::kMaxIterations ? 0 : 1);
  ctx.Metric("weights", static_cast<double>(trained.weights.size()));
  ctx.Metric("trained_weights", static_cast<double>(trained.trained_weights));
  ctx.Metric("train_seconds", std::chrono::duration<double>(Clock::now() - start).count());
  ctx.Attach(ObjectiveTrace().suffix, std::move(trace));
  auto model = std::make_shared<CrfModel>();
  model->label_names = data->label_names;
  model->encoding = data->encoding;
  model->dictionary = data->dictionary;
  model->weights = std::move(trained.weights);
  return model;
}

KindSpec TrainKind() {
  return KindSpec{
      "crf.train",
      "3",
      "First-order linear-chain CRF over every attribute x label pair plus label bigrams, trained by L-BFGS on "
      "the penalised log-likelihood -sum log p(y|x) + |w|^2 / (2 sigma2) (Gaussian prior); the gradient is computed "
      "in parallel with a fixed reduction order (same model for any -j).",
      std::string(CrfModel::kType),
      {PortSpec{"data", std::string(FeatureSet::kType), false, false,
                "labeled training sentences (features.templates)"}},
      {ParamSpec::Double("sigma2", 1.0, "Gaussian prior variance delta^2 (1 = CRFsuite c2 0.5, CRF++ -c 1)").Greater(0),
       ParamSpec::Int("max_iterations", 1000, "L-BFGS iterations at most").Min(1),
       ParamSpec::Double("delta", 1e-5,
                         "stop when the objective fell by less than delta (relative) over `past` iterations")
           .Min(0),
       ParamSpec::Int("past", 10, "iterations the relative decrease is measured over").Min(1),
       ParamSpec::Double("gradient_tolerance", 1e-5, "stop when |g| / max(1, |w|) < this").Min(0),
       ParamSpec::Int("memory", 4, "L-BFGS correction pairs (4: CoNLL-2000 in 190 iterations, under 500 MB)").Min(1),
       ParamSpec::Bool("float_history", true, "keep the correction pairs in single precision (halves their memory)"),
       ParamSpec::Bool("merge_duplicates", true,
                       "train one weight row per group of attributes firing at the same tokens (same optimum, "
                       "fewer weights)")},
      RunTrain};
}

}  // namespace

void RegisterCrfNodes(Registry& registry) {
  registry.AddArtifactType<CrfModel>({std::string(ChainModel::kInterface)});
  registry.AddKind(TrainKind().As(NodeRole::kTrainer).Attaching(ObjectiveTrace()));
  RegisterHybridNodes(registry);
}

}  // namespace seqflow

// crf.train: the adapter from a FeatureSet or a ShardedFeatureSet to the CRF likelihood and L-BFGS.
#include "nodes/crf/crf_nodes.h"

#include <fmt/format.h>

#include <chrono>
#include <optional>
#include <string>
#include <utility>

#include "engine/api/node.h"
#include "engine/base/bytes.h"
#include "nodes/common/state_table.h"
#include "nodes/crf/crf_model.h"
#include "nodes/crf/crf_train.h"
#include "nodes/crf/hybrid_nodes.h"
#include "nodes/features/sharded_feature_set.h"

namespace seqflow {
namespace {

using Clock = std::chrono::steady_clock;

// A ShardedFeatureSet's pieces hold no empty sentence (LoadFeatureShard checks it).
void CheckLabeled(const LabeledFeaturesHeader& header, const FeatureSet* whole) {
  if (!header.labeled || header.label_names.empty())
    throw StatusError(Status::Invalid("crf.train needs labeled sentences; its features have no labels"));
  for (size_t n = 0; whole != nullptr && n < whole->sentences.size(); ++n)
    if (whole->sentences[n].size() == 0)
      throw StatusError(Status::Invalid(fmt::format("sentence {} of the training data is empty", n + 1)));
}

ArtifactPtr RunTrain(NodeContext& ctx, const CrfTrainOptions& declared) {
  const ArtifactPtr input = ctx.inputs("data").at(0);
  const LabeledFeaturesHeader data = ValueOrThrow(LabeledFeaturesOf(*input));
  // A FeatureSet is read in place; a ShardedFeatureSet a stored shard at a time, in every pass.
  FeatureRanges ranges = ValueOrThrow(FeatureRanges::Of(*input, ctx.pieces()));
  const FeatureSet* whole = ranges.whole();
  CheckLabeled(data, whole);
  const CrfSentences sentences =
      whole != nullptr ? CrfSentences(whole->sentences, whole->labels)
                       : CrfSentences(data.num_sentences, [&](size_t begin, size_t end, const CrfSentences::Needed& needed) {
                           return ranges.Range(begin, end, needed);
                         });
  CrfTrainOptions options = declared;
  options.lbfgs.threads = ctx.threads();
  options.processes = ctx.processes();
  const Clock::time_point start = Clock::now();
  std::string trace = "iteration,objective,gradient_norm,step,evaluations,seconds\n";
  // A resumed run's trace continues the saved one (its seconds count from this run's start).
  // Its checkpoints (NodeContext::Checkpoint, KeepFinalState): the L-BFGS state of an iteration
  // with the trace so far as its trailer, so the state (hundreds of MB on CoNLL-2000) is not copied.
  std::optional<StateSource> resume = ctx.ResumeSource();
  LbfgsCheckpoints checkpoints;
  if (resume) {
    if (std::optional<std::string> saved_trace = TakeTrailer(*resume)) checkpoints.resume_from = &*resume, trace = *saved_trace;
  }
  checkpoints.offer = [&](const std::function<StatePieces()>& encode) {
    ctx.Checkpoint([&] { return WithTrailer(encode(), trace); });
  };
  checkpoints.keep_final_state = true;
  auto record_iteration = [&](const LbfgsIteration& it) {
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    trace += fmt::format("{},{:.12g},{:.6g},{:.6g},{},{:.3f}\n", it.iteration, it.objective, it.gradient_norm, it.step,
                         it.evaluations, seconds);
    ctx.Progress(it.iteration, options.lbfgs.max_iterations, fmt::format("objective {:.6g}", it.objective));
  };
  CrfTrainResult trained = ValueOrThrow(TrainCrf(sentences, data.dictionary->num_attributes(),
                                                 static_cast<int32_t>(data.label_names.size()), options,
                                                 record_iteration, ctx.cancellation(), checkpoints));
  const LbfgsResult& r = trained.optimizer;
  if (!r.final_state.empty())
    ctx.KeepFinalState(r.iterations,
                       [&] { return WithTrailer(std::move(trained.optimizer.final_state), trace).Join(); });
  ctx.Metric("iterations", r.iterations);
  ctx.Metric("evaluations", r.evaluations);
  ctx.Metric("objective", r.objective);
  ctx.Metric("converged", r.stop == LbfgsStop::kMaxIterations ? 0 : 1);
  ctx.Metric("weights", static_cast<double>(trained.weights.size()));
  ctx.Metric("trained_weights", static_cast<double>(trained.trained_weights));
  ctx.Metric("train_seconds", std::chrono::duration<double>(Clock::now() - start).count());
  ctx.Attach(ObjectiveTrace().suffix, std::move(trace));
  auto model = std::make_shared<CrfModel>();
  model->label_names = data.label_names;
  model->encoding = data.encoding;
  model->dictionary = data.dictionary;
  model->weights = std::move(trained.weights);
  model->order = options.order;
  return model;
}

ParamTable<CrfTrainOptions> TrainParams() {
  using O = CrfTrainOptions;
  auto lbfgs = [](auto member) { return At(&O::lbfgs, member); };
  ParamTable<O> table;
  table.Double("sigma2", &O::sigma2, "Gaussian prior variance delta^2 (1 = CRFsuite c2 0.5, CRF++ -c 1)")
      .Greater(0)
      .Int("max_iterations", lbfgs(&LbfgsOptions::max_iterations), "L-BFGS iterations at most")
      .Min(1)
      .Double("delta", lbfgs(&LbfgsOptions::delta),
              "stop when the objective fell by less than delta (relative) over `past` iterations")
      .Min(0)
      .Int("past", lbfgs(&LbfgsOptions::past), "iterations the relative decrease is measured over")
      .Min(1)
      .Double("gradient_tolerance", lbfgs(&LbfgsOptions::gradient_tolerance), "stop when |g| / max(1, |w|) < this")
      .Min(0)
      .Int("memory", lbfgs(&LbfgsOptions::memory),
           "L-BFGS correction pairs (4: CoNLL-2000 in 190 iterations, under 500 MB)")
      .Min(1)
      .Bool("float_history", lbfgs(&LbfgsOptions::float_history),
            "keep the correction pairs in single precision (halves their memory)")
      .Bool("merge_duplicates", &O::merge_duplicates,
            "train one weight row per group of attributes firing at the same tokens (same optimum, fewer weights)")
      .Int("order", &O::order,
           "Markov order: 1, or 2 for labels that are pairs of consecutive tags with tag-trigram transition weights "
           "(Sha & Pereira 2003), decoded back to single tags")
      .Min(1)
      .Max(2);
  return table;
}

KindSpec TrainKind() {
  return KindSpec{
      "crf.train",
      "3",
      "Linear-chain CRF over every attribute x label pair plus label bigrams (and tag trigrams for order 2), "
      "trained by L-BFGS on "
      "the penalised log-likelihood -sum log p(y|x) + |w|^2 / (2 sigma2) (Gaussian prior); the gradient is computed "
      "in parallel with a fixed reduction order (same model for any -j). A ShardedFeatureSet is streamed a shard "
      "at a time in every evaluation, with the bits of the same sentences held whole.",
      std::string(CrfModel::kType),
      {PortSpec{"data", std::string(kLabeledFeaturesInterface), false, false,
                "labeled training sentences (features.templates; sharded: streamed)"}},
      TrainParams(),
      RunTrain};
}

}  // namespace

void RegisterCrfNodes(Registry& registry) {
  registry.AddArtifactType<CrfModel>({std::string(ChainModel::kInterface)});
  registry.AddKind(TrainKind()
                       .Needing({.parallel = true, .memory_mb = 4096, .data_parallel = true})
                       .As(NodeRole::kTrainer)
                       .Attaching(ObjectiveTrace())
                       .Fitting({"data"})
                       .Continuing({{"max_iterations", true}, {"delta", false}, {"gradient_tolerance", false}}));
  RegisterHybridNodes(registry);
}

}  // namespace seqflow

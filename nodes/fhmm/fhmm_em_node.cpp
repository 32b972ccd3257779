// fhmm.em: the EM baseline of Marinho et al. (2016, §6.1) for the feature HMM. A kind of its own
// rather than an emission-family switch on hmm.em: hmm.em's parameters (freeze, the emission
// pseudo-count) and its contract (EM_λ on the multinomial Θ̃ of a PomLayout, resumed and
// continued from Θ̃, shared with hmm.em_sweep and the homotopy path) have no meaning for an
// M-step that is a log-linear fit, and the fit's own parameters none for hmm.em. What the two
// share is declared once and included: max_iter and tol (EmIterationParams), λ's text
// (CheckLambdaText), the ports and data (SemiSupervisedPorts), the log-linear fit
// (LogLinearParams).
//
// The paper starts EM from the supervised estimates and keeps the iteration with the best
// development accuracy: with a `dev` corpus every iteration's model (0 = the start) is Viterbi-
// decoded on it and the best is returned, the earliest on ties.
#include "nodes/fhmm/fhmm_em_node.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "engine/api/node.h"
#include "nodes/eval/score_model.h"
#include "nodes/fhmm/fhmm_dev_trace.h"
#include "nodes/fhmm/fhmm_em.h"
#include "nodes/fhmm/loglinear_params.h"
#include "nodes/fhmm/word_features.h"
#include "nodes/semi_supervised/node_params.h"
#include "nodes/semi_supervised/semi_supervised_data.h"

namespace seqflow {
namespace {

struct FhmmEmNodeOptions {
  std::string lambda = "mle";  // a number in [0, 1] or mle
  EmLambdaOptions em{10};      // max_iter, tol
  LogLinearOptions loglinear;
  HmmSmoothing smoothing{1.0, 1.0, 0.0};
};

AttachmentSpec EmTrace() { return AttachmentSpec::Table("em.csv", "iteration", {"dev_accuracy"}).MarkMax(); }

ArtifactPtr RunFhmmEmNode(NodeContext& ctx, const FhmmEmNodeOptions& options) {
  const auto clock_start = std::chrono::steady_clock::now();
  SemiSupervisedInputs in = ReadSemiSupervisedInputs(ctx, /*with_test=*/false);
  auto dev = ctx.InOptional<Corpus>("dev");
  const HmmModel& start = *in.start;
  const double lambda = LambdaOf(options.lambda, static_cast<int64_t>(in.data.words.size()),
                                 static_cast<int64_t>(in.data.unlabeled.size()));
  const WordFeatures features = BuildWordFeatures(*start.vocab);
  FhmmEmOptions em;
  em.max_iter = options.em.max_iter;
  em.tol = options.em.tol;
  em.loglinear = options.loglinear;
  em.smoothing = options.smoothing;
  em.threads = ctx.threads();

  // Checkpoints after each M-step (a killed run resumes after the last saved), with the dev trace.
  FhmmDevTrace trace;
  std::optional<std::pair<std::string, FhmmDevTrace>> resume;
  if (std::optional<std::string> saved = ctx.ResumeState()) {
    resume = SplitDevTrace(*saved, start.params);
    if (!resume) throw StatusError(Status::Invalid("fhmm.em: the state to resume from is not one of its states"));
    trace = std::move(resume->second);
  }
  KernelCheckpoints checkpoints;
  if (resume) checkpoints.resume_from = &resume->first;
  checkpoints.offer = [&](const std::function<StatePieces()>& encode) {
    ctx.Checkpoint([&] { return AppendDevTrace(encode().Join(), trace); });
  };
  std::vector<double>& dev_accuracy = trace.accuracy;
  std::optional<HmmParams>& best = trace.best;
  int& best_iteration = trace.best_iteration;
  auto observe = [&](int iteration, const HmmParams& params) -> Status {
    if (!dev) {
      ctx.Progress(iteration, options.em.max_iter);
      return Status::Ok();
    }
    HmmModel model(start);
    model.params = params;
    SEQFLOW_ASSIGN_OR_RETURN(auto scores, ScoreChainModel(model, *dev, DecodeMethod::kViterbi, ctx.threads()));
    dev_accuracy.push_back(scores["accuracy"]);
    ctx.Progress(iteration, options.em.max_iter, fmt::format("dev accuracy {:.4f}", dev_accuracy.back()));
    if (!best || dev_accuracy.back() > dev_accuracy[static_cast<size_t>(best_iteration)]) {
      best = params;
      best_iteration = iteration;
    }
    return Status::Ok();
  };
  FhmmEmResult result = ValueOrThrow(RunFhmmEm(
      start.params, Eigen::MatrixXd::Zero(start.num_states(), static_cast<Eigen::Index>(features.names.size())),
      features.phi, LabeledSentenceCounts(start.num_states(), start.num_symbols(), in.data.words, in.data.labels),
      static_cast<int64_t>(in.data.words.size()), in.data.unlabeled, lambda, em, ctx.cancellation(), observe,
      checkpoints));
  auto model = std::make_shared<HmmModel>(start);
  model->params = best ? std::move(*best) : std::move(result.model);
  ThrowIfError(ValidateHmmModel(*model, 1e-8));

  std::string csv = dev ? "iteration,objective,dev_accuracy\n" : "iteration,objective\n";
  char line[96];
  for (size_t i = 0; i < result.objective.size(); ++i) {
    if (dev)
      std::snprintf(line, sizeof line, "%zu,%.12g,%.6f\n", i, result.objective[i], dev_accuracy[i]);
    else
      std::snprintf(line, sizeof line, "%zu,%.12g\n", i, result.objective[i]);
    csv += line;
  }
  ctx.Attach(EmTrace().suffix, csv);
  ctx.Metric("lambda", lambda);
  ctx.Metric("iterations", result.iterations);
  ctx.Metric("converged", result.converged ? 1 : 0);
  ctx.Metric("objective.first", result.objective.front());
  ctx.Metric("objective.final", result.objective.back());
  ctx.Metric("features", static_cast<double>(features.names.size()));
  if (dev) {
    ctx.Metric("best_iteration", best_iteration);
    ctx.Metric("dev.accuracy.start", dev_accuracy.front());
    ctx.Metric("dev.accuracy.best", dev_accuracy[static_cast<size_t>(best_iteration)]);
  }
  ctx.Metric("seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - clock_start).count());
  return model;
}

ParamTable<FhmmEmNodeOptions> FhmmEmParams() {
  using O = FhmmEmNodeOptions;
  ParamTable<O> table;
  AddAllocation(table, &O::lambda);
  table.Include(&O::em, EmIterationParams())
      .Include(&O::loglinear, LogLinearParams())
      .Double("smoothing.initial", At(&O::smoothing, &HmmSmoothing::initial), "added to every initial-state count")
      .Min(0)
      .Double("smoothing.transition", At(&O::smoothing, &HmmSmoothing::transition), "added to every transition count")
      .Min(0);
  return table;
}

}  // namespace

KindSpec FhmmEmKind() {
  std::vector<PortSpec> ports = SemiSupervisedPorts(/*with_test=*/false);
  ports.push_back(PortSpec{"dev", std::string(Corpus::kType), false, true,
                           "labeled development data: the iteration with the best accuracy on it is returned"});
  return KindSpec{"fhmm.em",
                  "1",
                  "EM for the feature HMM (Marinho et al. 2016, section 6.1): forward-backward E-step on the "
                  "unlabeled corpora, labeled and expected counts interpolated as hmm.em (lambda), transitions "
                  "normalised and each label's log-linear emission weights refitted by L-BFGS to the expected "
                  "feature means (Eq. 25), warm-started; with `dev`, the iteration (0 = the start model) with the "
                  "best dev accuracy.",
                  std::string(HmmModel::kType),
                  std::move(ports),
                  FhmmEmParams(),
                  RunFhmmEmNode}
      .Attaching(EmTrace());
}

}  // namespace seqflow

// hmm.em and hmm.em_sweep: EM_λ at fixed allocations (Haffari & Sarkar 2008, Eq. 5; Fig. 2).
#include <fmt/format.h>

#include <cstdio>
#include <optional>
#include <string>

#include "nodes/common/state_table.h"
#include "nodes/eval/score_model.h"
#include "nodes/hmm/em_nodes.h"
#include "nodes/semi_supervised/em_lambda.h"
#include "nodes/semi_supervised/homotopy_path.h"
#include "nodes/semi_supervised/node_params.h"

namespace seqflow {
namespace {

// What hmm.em reads.
struct EmNodeOptions {
  std::string lambda = "mle";  // a number in [0, 1] or mle
  EmStartOptions start;
  EmLambdaOptions em;
};

// What hmm.em_sweep reads.
struct SweepNodeOptions {
  std::vector<double> lambdas;
  bool warm_start = false;
  DecodeMethod decoder = DecodeMethod::kViterbi;
  EmStartOptions start;
  EmLambdaOptions em;
};

// The iteration options with the node's threads and processes.
EmLambdaOptions WithThreads(EmLambdaOptions options, const NodeContext& ctx) {
  options.threads = ctx.threads();
  options.processes = ctx.processes();
  return options;
}

std::string ObjectiveCsv(const std::vector<double>& objective) {
  std::string out = "iteration,objective\n";
  char line[64];
  for (size_t i = 0; i < objective.size(); ++i) {
    std::snprintf(line, sizeof line, "%zu,%.12g\n", i, objective[i]);
    out += line;
  }
  return out;
}

// An EM_λ iteration's state as a checkpoint (NodeContext::Checkpoint): what RunEmLambda resumes
// from. The model is not saved: it is rebuilt from Θ̃.
StateTable<EmLambdaResult> EmState() {
  return StateTable<EmLambdaResult>("hmm.em")
      .I64(&EmLambdaResult::iterations)
      .Doubles(&EmLambdaResult::theta_tilde)
      .Doubles(&EmLambdaResult::objective);
}

// nullopt when the bytes are not a state (RunEmLambda checks that one fits the model).
std::optional<EmLambdaResult> DecodeEmState(const std::string& bytes) {
  EmLambdaResult state;
  if (!EmState().Decode(bytes, state).ok()) return std::nullopt;
  return state;
}

ArtifactPtr RunEm(NodeContext& ctx, const EmNodeOptions& options) {
  SemiSupervisedInputs in = ReadSemiSupervisedInputs(ctx, /*with_test=*/false, ctx.processes());
  PomLayout layout(in.start->num_states(), in.start->num_symbols(), FreeBlocksOf(options.start.freeze));
  double lambda = LambdaOf(options.lambda, static_cast<int64_t>(in.data.words.size()),
                           static_cast<int64_t>(in.data.unlabeled.size()));
  if (lambda > 0 && in.data.unlabeled.empty())
    throw StatusError(Status::Invalid("lambda > 0 needs unlabeled sentences, and the unlabeled corpora are empty"));
  Eigen::VectorXd em0 = Em0(layout, in.data.words, in.data.labels, options.start.smoothing);
  std::optional<std::string> saved = ctx.ResumeState();
  std::optional<EmLambdaResult> resume = saved ? DecodeEmState(*saved) : std::nullopt;
  EmLambdaResult result = ValueOrThrow(
      RunEmLambda(in.start->params, lambda, em0, in.data.unlabeled, layout, WithThreads(options.em, ctx),
                  ctx.cancellation(), resume ? &*resume : nullptr,
                  [&](const EmLambdaResult& state) {
                    if (!state.objective.empty())
                      ctx.Progress(state.iterations, options.em.max_iter,
                                   fmt::format("L_λ {:.9g}", state.objective.back()));
                    ctx.Checkpoint([&state] { return EmState().Encode(state); });
                  }));
  if (result.iterations > 0) {
    // The state after the last update: the iteration's E-step is made again by a continuation.
    ctx.KeepFinalState(result.iterations, [&result] {
      EmLambdaResult last = result;
      last.objective.resize(static_cast<size_t>(result.iterations));
      return EmState().Encode(last).Join();
    });
  }
  auto model = std::make_shared<HmmModel>(*in.start);
  model->params = std::move(result.model);
  ThrowIfError(ValidateHmmModel(*model));
  ctx.Metric("lambda", lambda);
  ctx.Metric("iterations", result.iterations);
  ctx.Metric("converged", result.converged ? 1 : 0);
  ctx.Metric("objective.first", result.objective.front());
  ctx.Metric("objective.final", result.objective.back());
  ctx.Attach(ObjectiveTrace().suffix, ObjectiveCsv(result.objective));
  return model;
}

ArtifactPtr RunSweep(NodeContext& ctx, const SweepNodeOptions& options) {
  SemiSupervisedInputs in = ReadSemiSupervisedInputs(ctx, /*with_test=*/true, ctx.processes());
  auto [path, em0] = StartPath("em_sweep", in, options.start);
  PomLayout layout = path->Layout();
  const std::vector<double>& lambdas = options.lambdas;
  const EmLambdaOptions em = WithThreads(options.em, ctx);
  HmmParams previous = in.start->params;
  for (size_t i = 0; i < lambdas.size(); ++i) {
    EmLambdaResult r = ValueOrThrow(RunEmLambda(options.warm_start ? previous : in.start->params, lambdas[i], em0,
                                                in.data.unlabeled, layout, em, ctx.cancellation()));
    HomotopyPoint point;
    point.s = point.lambda = lambdas[i];
    point.theta_tilde = layout.Gather(r.model);
    point.metrics["objective"] = r.objective.back();
    point.metrics["iterations"] = r.iterations;
    path->points.push_back(std::move(point));
    if (in.test) {
      auto scores = ValueOrThrow(ScoreChainModel(*path->ModelAt(i), *in.test, options.decoder, ctx.threads()));
      for (const auto& [name, value] : scores) path->points.back().metrics["test." + name] = value;
      path->points.back().metrics["test.error"] = 1 - scores["accuracy"];
    }
    previous = std::move(r.model);
    ctx.Progress(static_cast<int64_t>(i + 1), static_cast<int64_t>(lambdas.size()), fmt::format("λ {:.4g}", lambdas[i]));
  }
  path->stop = "grid done";
  ctx.Metric("points", static_cast<double>(path->points.size()));
  ctx.Attach(HomotopyPath::CsvTable().suffix, path->Csv());
  return path;
}

ParamTable<EmNodeOptions> EmParams() {
  using O = EmNodeOptions;
  ParamTable<O> table;
  AddAllocation(table, &O::lambda);
  table.Include(&O::start, EmStartParams())
      .Include(&O::em, EmIterationParams());
  return table;
}

ParamTable<SweepNodeOptions> SweepParams() {
  using O = SweepNodeOptions;
  ParamTable<O> table;
  table.DoubleList("lambdas", &O::lambdas, "allocations in [0, 1], in order")
      .Required()
      .Min(0)
      .Max(1)
      .Bool("warm_start", &O::warm_start, "start each lambda from the previous solution");
  AddDecoder(table, &O::decoder, "decoder for the test columns");
  table.Include(&O::start, EmStartParams()).Include(&O::em, EmIterationParams());
  return table;
}

}  // namespace

void RegisterEmNodes(Registry& registry) {
  registry.AddKind(
      KindSpec{"hmm.em", "1",
               "EM_lambda at a fixed allocation: labeled counts weighted (1-lambda)/|L|, expected unlabeled counts "
               "lambda/|U| (Haffari & Sarkar 2008, Eq. 5), from the start model; frozen blocks stay fixed.",
               "HmmModel", SemiSupervisedPorts(false), EmParams(), RunEm}
          .As(NodeRole::kTrainer)
          .Needing({.parallel = true, .memory_mb = 2048, .data_parallel = true})
          .Attaching(ObjectiveTrace())
          .Continuing({{"max_iter", true}, {"tol", false}}));
  registry.AddKind(
      KindSpec{"hmm.em_sweep", "1",
               "EM_lambda to convergence at every lambda of a grid, each from the start model or warm-started from the "
               "previous lambda (Haffari & Sarkar 2008, Fig. 2 a/b); a path for homotopy.select and plots.",
               "HomotopyPath", SemiSupervisedPorts(true), SweepParams(), RunSweep}
          .As(NodeRole::kTrainer)
          .Needing({.parallel = true, .memory_mb = 2048, .data_parallel = true})
          .Attaching(HomotopyPath::CsvTable()));
}

}  // namespace seqflow

// hmm.em and hmm.em_sweep: EM_λ at fixed allocations (Haffari & Sarkar 2008, Eq. 5; Fig. 2).
#include <cstdio>

#include "nodes/homotopy/em_lambda.h"
#include "nodes/homotopy/homotopy_nodes.h"
#include "nodes/homotopy/homotopy_path.h"
#include "nodes/homotopy/node_params.h"

namespace seqflow {
namespace {

EmLambdaOptions EmOptions(const NodeContext& ctx) {
  EmLambdaOptions options;
  options.max_iter = static_cast<int>(ctx.params().GetInt("max_iter"));
  options.rel_tol = ctx.params().GetDouble("tol");
  options.threads = ctx.threads();
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

ArtifactPtr RunEm(NodeContext& ctx) {
  SemiSupervisedInputs in = ReadSemiSupervisedInputs(ctx, /*with_test=*/false);
  PomLayout layout(in.start->num_states(), in.start->num_symbols(), FreeBlocksOf(ctx.params()));
  double lambda = LambdaOf(ctx.params().GetString("lambda"), static_cast<int64_t>(in.data.words.size()),
                           static_cast<int64_t>(in.data.unlabeled.size()));
  if (lambda > 0 && in.data.unlabeled.empty())
    throw StatusError(Status::Invalid("lambda > 0 needs unlabeled sentences, and the unlabeled corpora are empty"));
  Eigen::VectorXd em0 = Em0(layout, in.data.words, in.data.labels, SmoothingOf(ctx.params()));
  EmLambdaResult result = ValueOrThrow(
      RunEmLambda(in.start->params, lambda, em0, in.data.unlabeled, layout, EmOptions(ctx), ctx.cancellation()));
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

ArtifactPtr RunSweep(NodeContext& ctx) {
  SemiSupervisedInputs in = ReadSemiSupervisedInputs(ctx, /*with_test=*/true);
  auto [path, em0] = StartPath("em_sweep", in, ctx.params());
  PomLayout layout = path->Layout();
  const auto& lambdas = ctx.params().GetDoubles("lambdas");
  const bool warm = ctx.params().GetBool("warm_start");
  HmmParams previous = in.start->params;
  for (size_t i = 0; i < lambdas.size(); ++i) {
    EmLambdaResult r = ValueOrThrow(RunEmLambda(warm ? previous : in.start->params, lambdas[i], em0, in.data.unlabeled,
                                                layout, EmOptions(ctx), ctx.cancellation()));
    HomotopyPoint point;
    point.s = point.lambda = lambdas[i];
    point.theta_tilde = layout.Gather(r.model);
    point.metrics["objective"] = r.objective.back();
    point.metrics["iterations"] = r.iterations;
    path->points.push_back(std::move(point));
    if (in.test) {
      auto scores = ValueOrThrow(ScoreModel(*path->ModelAt(i), *in.test, DecoderOf(ctx.params()), ctx.threads()));
      for (const auto& [name, value] : scores) path->points.back().metrics["test." + name] = value;
      path->points.back().metrics["test.error"] = 1 - scores["accuracy"];
    }
    previous = std::move(r.model);
    ctx.Progress(static_cast<int64_t>(i + 1), static_cast<int64_t>(lambdas.size()));
  }
  path->stop = "grid done";
  ctx.Metric("points", static_cast<double>(path->points.size()));
  ctx.Attach(HomotopyPath::CsvTable().suffix, path->Csv());
  return path;
}

std::vector<ParamSpec> WithEmParams(std::vector<ParamSpec> params) {
  for (auto& p : EmLambdaParams()) params.push_back(std::move(p));
  params.push_back(ParamSpec::Int("max_iter", 100, "EM_λ iterations at most").Min(1));
  params.push_back(ParamSpec::Double("tol", 1e-6, "stop when L_λ changes by less than tol (1 + |L_λ|)").Min(0));
  return params;
}

}  // namespace

void RegisterEmNodes(Registry& registry) {
  registry.AddKind(KindSpec{
      "hmm.em", "1",
      "EM_lambda at a fixed allocation: labeled counts weighted (1-lambda)/|L|, expected unlabeled counts "
      "lambda/|U| (Haffari & Sarkar 2008, Eq. 5), from the start model; frozen blocks stay fixed.",
      "HmmModel", SemiSupervisedPorts(false),
      WithEmParams(
          {ParamSpec::String("lambda", "mle", "allocation in [0, 1], or mle = |U|/(|L|+|U|)").Check(CheckLambdaText)}),
      RunEm}
                       .As(NodeRole::kTrainer)
                       .Attaching(ObjectiveTrace()));
  registry.AddKind(KindSpec{
      "hmm.em_sweep", "1",
      "EM_lambda to convergence at every lambda of a grid, each from the start model or warm-started from the "
      "previous lambda (Haffari & Sarkar 2008, Fig. 2 a/b); a path for homotopy.select and plots.",
      "HomotopyPath", SemiSupervisedPorts(true),
      WithEmParams({ParamSpec::DoubleList("lambdas", std::nullopt, "allocations, in order"),
                    ParamSpec::Bool("warm_start", false, "start each lambda from the previous solution"),
                    ParamSpec::Enum("decoder", {"viterbi", "sms"}, "viterbi", "decoder for the test columns")}),
      RunSweep}
                       .As(NodeRole::kTrainer)
                       .Attaching(HomotopyPath::CsvTable()));
}

}  // namespace seqflow

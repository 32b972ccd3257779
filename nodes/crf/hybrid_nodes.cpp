// crf.lop and crf.hysol: adapters from trained CRFs and corpora to the hybrid-model kernels.
#include "nodes/crf/hybrid_nodes.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <functional>
#include <optional>

#include "engine/api/node.h"
#include "nodes/common/node_checkpoints.h"
#include "nodes/crf/hybrid_model.h"
#include "nodes/crf/hysol_train.h"
#include "nodes/eval/score_model.h"
#include "nodes/features/template_params.h"
#include "nodes/io/sentence_ranges.h"
#include "nodes/io/sharded_corpus.h"

namespace seqflow {
namespace {

using Clock = std::chrono::steady_clock;

// A model holding the `experts` input, on their common label set; Γ and any HMMs come later.
std::shared_ptr<HybridModel> ModelOfExperts(NodeContext& ctx) {
  auto model = std::make_shared<HybridModel>();
  model->experts = ctx.InList<CrfModel>("experts");
  model->label_names = ValueOrThrow(CommonLabels(model->experts));
  model->encoding = model->experts[0]->encoding;
  return model;
}

void ReportGamma(NodeContext& ctx, const HybridModel& model) {
  std::string table = "model,kind,name,gamma\n";
  for (size_t i = 0; i < model.experts.size(); ++i) {
    ctx.Metric(fmt::format("gamma.crf{}", i + 1), model.gamma(static_cast<Eigen::Index>(i)));
    table += fmt::format("{},crf,expert {},{:.9g}\n", i + 1, i + 1, model.gamma(static_cast<Eigen::Index>(i)));
  }
  const auto experts = static_cast<Eigen::Index>(model.experts.size());
  for (int j = 0; j < model.theta.num_models(); ++j) {
    ctx.Metric(fmt::format("gamma.hmm{}", j + 1), model.gamma(experts + j));
    table += fmt::format("{},hmm,\"{}\",{:.9g}\n", experts + j + 1, model.symbols.dictionary()->templates()[j].text,
                         model.gamma(experts + j));
  }
  ctx.Attach("gamma.csv", std::move(table));
}

struct LopNodeOptions {
  double xi_prime = 0.1;  // Γ prior
};

ArtifactPtr RunLop(NodeContext& ctx, const LopNodeOptions& options) {
  auto model = ModelOfExperts(ctx);
  auto heldout = ctx.In<Corpus>("heldout");
  const HybridCorpus data =
      ValueOrThrow(BuildHybridCorpus(model->experts, model->symbols, model->label_names, *heldout, true, ctx.threads()));
  const auto experts = static_cast<Eigen::Index>(model->experts.size());
  const CombinationFit fit = ValueOrThrow(FitCombinationWeights(
      data, model->expert_transitions(), model->theta,
      Eigen::VectorXd::Constant(experts, 1.0 / static_cast<double>(experts)), options.xi_prime, ctx.threads()));
  model->gamma = fit.gamma;
  ctx.Metric("heldout_objective", fit.objective);
  ctx.Metric("iterations", fit.iterations);
  ReportGamma(ctx, *model);
  return model;
}

// What crf.hysol reads: the feature types of its HMMs (default: HySOL's chunking set), their
// symbol threshold, and the kernel's options.
struct HysolNodeOptions {
  TemplateChoice features{"hysol_chunking", {}};
  int min_count = 1;
  bool stream_unlabeled = false;
  HysolOptions hysol;
};

// With a test input, a last column test_f1 on the Γ steps (the paper's Fig. 2).
std::string TraceCsv(const std::vector<HysolStep>& trace, bool with_test) {
  std::string csv = "iteration,step,em_iteration,generative_objective,heldout_before,heldout_objective,theta_change";
  const Eigen::Index models = trace.empty() ? 0 : trace.front().gamma.size();
  for (Eigen::Index m = 0; m < models; ++m) csv += fmt::format(",gamma{}", m + 1);
  csv += with_test ? ",test_f1\n" : "\n";
  for (const HysolStep& s : trace) {
    csv += fmt::format("{},{},{},{:.12g},{:.12g},{:.12g},{:.6g}", s.iteration, s.step, s.em_iteration, s.generative,
                       s.heldout_before, s.heldout, s.theta_change);
    for (Eigen::Index m = 0; m < s.gamma.size(); ++m) csv += fmt::format(",{:.6g}", s.gamma(m));
    if (with_test) csv += std::isfinite(s.score) ? fmt::format(",{:.6f}", s.score) : ",";
    csv += "\n";
  }
  return csv;
}

ArtifactPtr RunHysol(NodeContext& ctx, const HysolNodeOptions& declared) {
  const Clock::time_point start = Clock::now();
  auto model = ModelOfExperts(ctx);
  auto train = ctx.In<Corpus>("train");
  auto heldout = ctx.In<Corpus>("heldout");
  // A Corpus or a ShardedCorpus: read a storage shard at a time, never held whole but to build the
  // resident per-token inputs.
  const std::vector<ArtifactPtr> unlabeled_input = ctx.inputs("unlabeled");
  SentenceRanges unlabeled = ValueOrThrow(SentenceRanges::Of(*unlabeled_input.at(0), ctx.pieces()));

  // The symbol tables cover every text the HMMs see in training, labeled or not.
  auto dictionary = std::make_shared<FeatureDictionary>(
      ValueOrThrow(FeatureDictionary::Compile(ValueOrThrow(TemplatesOf(declared.features)), unlabeled.columns())));
  ThrowIfError(GenerativeSymbols::CheckOneValuePerToken(*dictionary));
  ThrowIfError(dictionary->FitEach(
      [&](const FeatureDictionary::CorpusVisitor& visit) {
        SEQFLOW_RETURN_IF_ERROR(visit(*train));
        SEQFLOW_RETURN_IF_ERROR(visit(*heldout));
        return ForEachCorpusShard(*unlabeled_input[0], ctx.pieces(), visit);
      },
      declared.min_count));
  model->symbols = GenerativeSymbols(std::move(dictionary));
  const int threads = ctx.threads();
  const HybridCorpus labeled_data =
      ValueOrThrow(BuildHybridCorpus(model->experts, model->symbols, model->label_names, *train, true, threads));
  const HybridCorpus heldout_data =
      ValueOrThrow(BuildHybridCorpus(model->experts, model->symbols, model->label_names, *heldout, true, threads));
  // Sentences [begin, end) of the unlabeled text as hybrid inputs.
  auto build = [&](size_t begin, size_t end) -> Result<HybridCorpus> {
    SEQFLOW_ASSIGN_OR_RETURN(Corpus range, unlabeled.Range(begin, end));
    return BuildHybridCorpus(model->experts, model->symbols, model->label_names, range, false, threads);
  };
  // Streamed, the unlabeled text's per-token inputs exist one block at a time, rebuilt at every pass
  // (nodes/crf/README.md, "Memory").
  HybridCorpus resident_data;
  if (!declared.stream_unlabeled)
    resident_data = unlabeled.whole() != nullptr
                        ? ValueOrThrow(BuildHybridCorpus(model->experts, model->symbols, model->label_names,
                                                         *unlabeled.whole(), false, threads))
                        : ValueOrThrow(build(0, unlabeled.num_sentences()));
  const UnlabeledHybrid unlabeled_data = declared.stream_unlabeled
                                             ? UnlabeledHybrid(unlabeled.num_sentences(), build)
                                             : UnlabeledHybrid(resident_data);
  const double setup_seconds = std::chrono::duration<double>(Clock::now() - start).count();

  HysolOptions options = declared.hysol;
  options.threads = threads;
  options.processes = ctx.processes();
  const std::shared_ptr<const Corpus> test = ctx.InOptional<Corpus>("test");
  if (test)
    options.score = [&](const GenerativeParams& theta, const Eigen::VectorXd& gamma) -> Result<double> {
      HybridModel scored = *model;
      scored.theta = theta;
      scored.gamma = gamma;
      SEQFLOW_ASSIGN_OR_RETURN(auto scores, ScoreChainModel(scored, *test, DecodeMethod::kViterbi, threads));
      return scores.at("f1");
    };
  auto progress = [&](const HysolStep& step) {
    if (step.step == "em")
      ctx.Progress(step.iteration, options.max_iterations, fmt::format("EM {}  G {:.6g}", step.em_iteration, step.generative));
    else if (step.step == "gamma")
      ctx.Progress(step.iteration, options.max_iterations,
                   fmt::format("held-out {:.6g}  Θ change {:.2g}", step.heldout, step.theta_change));
  };
  // Checkpoints between outer alternations (a killed run resumes after the last one saved).
  const NodeCheckpoints checkpoints(ctx);
  HysolResult result = ValueOrThrow(TrainHysol(labeled_data, heldout_data, unlabeled_data, model->expert_transitions(),
                                               model->symbols.vocabulary_sizes(), options, progress,
                                               ctx.cancellation(), checkpoints.kernel()));
  model->theta = std::move(result.theta);
  model->gamma = std::move(result.gamma);
  const HysolStep* last_fit = nullptr;      // the last Γ step: why the alternation stopped
  const HysolStep* selected_fit = nullptr;  // the Γ step whose pair the model holds
  for (const HysolStep& step : result.trace) {
    if (step.step != "gamma") continue;
    last_fit = &step;
    if (step.iteration == result.selected_iteration) selected_fit = &step;
  }
  ctx.Metric("iterations", result.iterations);
  ctx.Metric("converged", result.converged ? 1 : 0);
  ctx.Metric("selected_iteration", result.selected_iteration);
  ctx.Metric("theta_change", last_fit->theta_change);
  ctx.Metric("heldout_objective", selected_fit->heldout);
  ctx.Metric("unlabeled_tokens", static_cast<double>(unlabeled.num_tokens()));
  int64_t symbols = 0;
  for (int64_t v : model->symbols.vocabulary_sizes()) symbols += v;
  ctx.Metric("symbols", static_cast<double>(symbols));
  ctx.Metric("setup_seconds", setup_seconds);
  ctx.Metric("train_seconds", std::chrono::duration<double>(Clock::now() - start).count());
  ctx.Attach("objective.csv", TraceCsv(result.trace, test != nullptr));
  ReportGamma(ctx, *model);
  return model;
}

PortSpec ExpertsPort() {
  return PortSpec{"experts", std::string(CrfModel::kType), true, false,
                  "the CRFs to combine (crf.train outputs on one label set)"};
}

constexpr const char* kXiPrimeDoc = "Dirichlet prior on Γ, ξ' = ξ - 1 (adds ξ' Σ log γ; 0 = no prior)";

ParamTable<LopNodeOptions> LopParams() {
  ParamTable<LopNodeOptions> table;
  table.Double("xi_prime", &LopNodeOptions::xi_prime, kXiPrimeDoc).Min(0);
  return table;
}

KindSpec LopKind() {
  return KindSpec{
      "crf.lop",
      "2",
      "Logarithmic opinion pool of CRFs (Smith, Cohn & Osborne 2005): p(y|x) ∝ Π_i p_i(y|x)^γ_i with the weights "
      "γ_i in [0, 1] maximising the held-out conditional log-likelihood under a Dirichlet prior (bound-constrained "
      "L-BFGS). The pool decodes as one chain with merged potentials.",
      std::string(HybridModel::kType),
      {ExpertsPort(), PortSpec{"heldout", std::string(Corpus::kType), false, false,
                               "labeled sentences the weights are fitted on (not the experts' training data)"}},
      LopParams(),
      RunLop};
}

ParamTable<HysolNodeOptions> HysolParams() {
  using O = HysolNodeOptions;
  auto hysol = [](auto member) { return At(&O::hysol, member); };
  ParamTable<O> table;
  table.Include(&O::features, TemplateParams())
      .Int("min_count", &O::min_count, "occurrences a feature value needs to be its own HMM symbol")
      .Min(1)
      .Bool("stream_unlabeled", &O::stream_unlabeled,
            "build the unlabeled text's per-token inputs (expert scores, HMM symbols, 424 bytes a token on "
            "CoNLL-2000) block by block at every pass instead of holding them whole: the same bits, about 3x "
            "the CPU (nodes/crf/README.md, \"Memory\")")
      .Double("xi_prime", hysol(&HysolOptions::xi_prime), kXiPrimeDoc)
      .Min(0)
      .Double("eta_prime", hysol(&HysolOptions::eta_prime),
              "Dirichlet prior on the HMMs, η' = η - 1 (added to every count)")
      .Min(0)
      .Int("max_iterations", hysol(&HysolOptions::max_iterations), "outer Θ/Γ alternations at most (Fig. 1, step 4)")
      .Min(1)
      .Double("tolerance", hysol(&HysolOptions::tolerance), "stop when |Θ(t+1) - Θ(t)| / |Θ(t)| is below this")
      .Min(0)
      .Int("em_iterations", hysol(&HysolOptions::em_iterations), "EM iterations at most per Θ step (4.1)")
      .Min(1)
      .Double("em_tolerance", hysol(&HysolOptions::em_tolerance),
              "end a Θ step when G(Θ|Γ) rose by less than this (relative)")
      .Min(0);
  return table;
}

KindSpec HysolKind() {
  return KindSpec{
      "crf.hysol",
      "4",
      "HySOL (Suzuki, Fujino & Isozaki 2007): CRF experts combined with one HMM per feature type trained on "
      "unlabeled text under the hybrid posterior R (Eq. 5); Γ fitted on held-out labeled data (Eq. 3), Θ by EM, "
      "alternating until Θ changes by less than `tolerance`; after `max_iterations` without that, the pair "
      "(Θ, Γ) of highest G(Θ|Γ) (§5.2). Decodes as one chain with merged potentials.",
      std::string(HybridModel::kType),
      {ExpertsPort(),
       PortSpec{"train", std::string(Corpus::kType), false, false,
                "the labeled sentences the experts were trained on (the HMMs' supervised start Θ(0))"},
       PortSpec{"heldout", std::string(Corpus::kType), false, false, "labeled sentences Γ is fitted on"},
       PortSpec{"unlabeled", std::string(kSentencesInterface), false, false,
                "unlabeled text with the columns the feature types read (a Corpus, or a ShardedCorpus read a "
                "shard at a time)"},
       PortSpec{"test", std::string(Corpus::kType), false, true,
                "labeled sentences scored (F1, Viterbi) at every outer iteration, objective.csv's test_f1: the "
                "paper's Fig. 2; the model does not depend on them"}},
      HysolParams(),
      RunHysol};
}

}  // namespace

void RegisterHybridNodes(Registry& registry) {
  registry.AddArtifactType<HybridModel>({std::string(ChainModel::kInterface)});
  // crf.lop holds its experts and their scores on the held-out part: 0.85 GB at most on CoNLL-2000,
  // its four experts loaded included (bench/RESULTS.md, "CoNLL-2000 HySOL under 2 GB"). Declared small enough
  // to run beside a HySOL node, so that the experts it alone still needs are let go early.
  registry.AddKind(
      LopKind().Needing({.parallel = true, .memory_mb = 2048}).As(NodeRole::kTrainer).SelectingBy({"heldout"}));
  registry.AddKind(HysolKind()
                       .Needing({.parallel = true, .memory_mb = 8192, .data_parallel = true})
                       .As(NodeRole::kTrainer)
                       .Fitting({"train"})
                       .FittingInputs({"unlabeled"})
                       .SelectingBy({"heldout"})
                       // The paper's Fig. 2, when the node has a test input.
                       .Attaching(AttachmentSpec::Table("objective.csv", "iteration", {"test_f1"})
                                      .XLabel("HySOL iteration t")
                                      .MarkMax()));
}

}  // namespace seqflow

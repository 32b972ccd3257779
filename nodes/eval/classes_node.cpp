#include "nodes/eval/classes_node.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "engine/api/node.h"
#include "engine/base/hash.h"
#include "nodes/eval/sentence_stats.h"
#include "nodes/hmm/classifier_model.h"
#include "nodes/io/class_sequences.h"
#include "stats/significance.h"

namespace seqflow {
namespace {

const std::string kSequences(ClassSequences::kType);
const std::string kModel(ClassifierModel::kType);

struct EvalOptions {
  int samples = 10000;
  int seed = 1;
};

std::vector<int32_t> Predict(const ClassifierModel& m, const ClassSequences& gold, int threads) {
  return ArgmaxClasses(
      ValueOrThrow(ClassPosteriors(m.model.prior, ClassLogLikelihoods(m.model, gold.sequences, threads))));
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

}  // namespace

void RegisterClassesNode(Registry& registry) {
  registry.AddKind(KindSpec{"eval.classes",
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
}

}  // namespace seqflow

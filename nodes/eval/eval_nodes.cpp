// Adapters between the engine and the scoring kernels.
#include "nodes/eval/eval_nodes.h"

#include "engine/api/node.h"
#include "nodes/eval/classes_node.h"
#include "nodes/eval/compare_node.h"
#include "nodes/eval/segments.h"
#include "nodes/eval/sentence_stats.h"

namespace seqflow {

namespace {

std::vector<PortSpec> EvalPorts() {
  return {PortSpec{"predicted", std::string(Predictions::kType), false, false, "decoded labels"},
          PortSpec{"gold", std::string(Corpus::kType), false, false, "the labeled corpus that was decoded"}};
}

std::shared_ptr<Metrics> Publish(NodeContext& ctx, std::map<std::string, double> values) {
  auto metrics = std::make_shared<Metrics>();
  metrics->values = std::move(values);
  for (const auto& [name, value] : metrics->values) ctx.Metric(name, value);
  return metrics;
}

// The per-sentence counts `seqflow report` tests rows with, declared so it finds them.
const AttachmentSpec& SentenceCounts() {
  static const AttachmentSpec kSpec = AttachmentSpec::SentenceCounts("sentences.csv");
  return kSpec;
}

void AttachSentences(NodeContext& ctx, const Corpus& gold, bool segments, std::vector<SentenceStats> sentences) {
  ctx.Attach(SentenceCounts().suffix, FormatSentenceStats({GoldFingerprint(gold), segments, std::move(sentences)}));
}

ArtifactPtr RunTokens(NodeContext& ctx) {
  auto gold = ctx.In<Corpus>("gold");
  AlignedLabels labels = ValueOrThrow(AlignLabels(*gold, *ctx.In<Predictions>("predicted")));
  TokenScores scores = ScoreTokens(labels);
  AttachSentences(ctx, *gold, false, TokenSentenceStats(labels));
  return Publish(ctx, {{"accuracy", scores.accuracy()},
                       {"tokens", static_cast<double>(scores.tokens)},
                       {"sentence_accuracy", scores.sentence_accuracy()}});
}

// Runs and prefixed tags cannot be scored against each other; an unset encoding defers to gold.
void CheckEncodings(TagEncoding gold, TagEncoding predicted) {
  bool gold_runs = gold == TagEncoding::kRuns, predicted_runs = predicted == TagEncoding::kRuns;
  if (predicted != TagEncoding::kNone && gold_runs != predicted_runs)
    throw StatusError(Status::Invalid(std::string("predictions use tag encoding ") + TagEncodingName(predicted) +
                                      ", the gold corpus " + TagEncodingName(gold)));
}

ArtifactPtr RunSegments(NodeContext& ctx) {
  auto gold = ctx.In<Corpus>("gold");
  auto predicted = ctx.In<Predictions>("predicted");
  CheckEncodings(gold->encoding, predicted->encoding);
  AlignedLabels labels = ValueOrThrow(AlignLabels(*gold, *predicted));
  SegmentScores scores = ValueOrThrow(ScoreSegments(labels, gold->encoding));
  AttachSentences(ctx, *gold, true, SegmentSentenceStats(scores, labels));
  return Publish(ctx, SegmentMetrics(scores));
}

}  // namespace

void RegisterEvalNodes(Registry& registry) {
  registry.AddKind(KindSpec{"eval.tokens",
                            "2",
                            "Token accuracy and sentence accuracy (every token right); labels compared by name. "
                            "Attaches per-sentence counts (sentences.csv) for `seqflow report`'s paired tests.",
                            std::string(Metrics::kType),
                            EvalPorts(),
                            {},
                            RunTokens}
                       .As(NodeRole::kEvaluator, {"accuracy"})
                       .Attaching(SentenceCounts()));
  registry.AddKind(
      KindSpec{"eval.segments",
               "2",
               "Segment precision, recall and F1 overall and per type, by conlleval's chunk rules for IOB1/IOB2; "
               "for `runs` each maximal run of one label is a segment. Also accuracy and sentence accuracy. "
               "Attaches per-sentence counts (sentences.csv) for `seqflow report`'s paired tests.",
               std::string(Metrics::kType),
               EvalPorts(),
               {},
               RunSegments}
          .As(NodeRole::kEvaluator, {"f1", "precision", "recall", "accuracy"})
          .Attaching(SentenceCounts()));
  RegisterCompareNode(registry);
  RegisterClassesNode(registry);
}

}  // namespace seqflow

// Adapters between the engine and the scoring kernels.
#include "nodes/eval/eval_nodes.h"

#include "engine/api/node.h"
#include "nodes/eval/compare_node.h"
#include "nodes/eval/conll_writer.h"
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

// The file goes into the run record, and with it into the cache entry, so a cached rerun writes
// it again.
struct WriteConllOptions {
  ConllSeparator separator = ConllSeparator::kSpace;
};

ArtifactPtr RunWriteConll(NodeContext& ctx, const WriteConllOptions& options) {
  auto data = ctx.In<Corpus>("data");
  std::vector<const Predictions*> columns;
  const auto predicted = ctx.InList<Predictions>("predicted");
  for (const auto& p : predicted) columns.push_back(p.get());
  Result<std::string> text = FormatConll(*data, columns, options.separator);
  ThrowIfError(text.status().Annotate("node '" + ctx.node_name() + "'"));
  ctx.Attach("conll", std::move(text).value());
  return Publish(ctx, {{"sentences", static_cast<double>(data->sentences.size())},
                       {"tokens", static_cast<double>(data->num_tokens())}});
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
  registry.AddKind(
      KindSpec{"write.conll",
               "1",
               "Writes the sentences with their columns, gold labels (if any) and one column per prediction as a CoNLL "
               "file, DIR/<node>.conll of the run record (--out DIR); with one prediction the last two columns are "
               "conlleval's gold and guess.",
               std::string(Metrics::kType),
               {PortSpec{"data", std::string(Corpus::kType), false, false, "the decoded sentences"},
                PortSpec{"predicted", std::string(Predictions::kType), true, false,
                         "one or more predictions of those sentences, one column each, in this order"}},
               ParamTable<WriteConllOptions>().Enum(
                   "separator", &WriteConllOptions::separator,
                   {{"space", ConllSeparator::kSpace}, {"tab", ConllSeparator::kTab}},
                   "between fields; tab allows spaces inside tokens (read.conll's separator: tab)"),
               RunWriteConll}
          .As(NodeRole::kWriter));
  RegisterCompareNode(registry);
}

}  // namespace seqflow

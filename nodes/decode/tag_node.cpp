// decode.tag and decode.tag_shards: Viterbi-decode a corpus and keep the labels as a column of it.
#include "nodes/decode/tag_node.h"

#include <algorithm>
#include <memory>

#include "engine/api/node.h"
#include "nodes/decode/decode_nodes.h"
#include "nodes/io/sentence_ranges.h"
#include "nodes/io/shard_params.h"
#include "nodes/io/sharded_corpus.h"

namespace seqflow {
namespace {

// Enough sentences to eyeball the tags in the run record, few enough for any corpus size.
constexpr size_t kPreviewSentences = 5;

// The first sentences one token a line, tab-separated columns under a header of column names,
// a blank line after each sentence.
std::string Preview(const Corpus& corpus) {
  std::string out;
  for (size_t c = 0; c < corpus.columns.size(); ++c) out += (c ? "\t" : "") + corpus.columns[c];
  out += "\n";
  for (size_t n = 0; n < std::min(kPreviewSentences, corpus.sentences.size()); ++n) {
    const Sentence& s = corpus.sentences[n];
    for (size_t t = 0; t < s.size(); ++t) {
      for (size_t c = 0; c < s.cols.size(); ++c) out += (c ? "\t" : "") + s.cols[c][t];
      out += "\n";
    }
    out += "\n";
  }
  return out;
}

struct TagOptions {
  std::string column = "pos";
  bool replace = false;
};

ArtifactPtr RunTag(NodeContext& ctx, const TagOptions& options) {
  const std::string& column = options.column;
  const bool replace = options.replace;
  const std::string where = "node '" + ctx.node_name() + "'";
  auto data = ctx.In<Corpus>("data");
  // Before decoding: a name clash should not cost a pass over a large corpus.
  ThrowIfError(CheckLabelColumn(*data, column, replace).Annotate(where));
  Result<Predictions> predicted =
      DecodeCorpus(*ctx.In<ChainModel>("model"), *data, DecodeMethod::kViterbi, false, ctx.threads());
  ThrowIfError(predicted.status().Annotate(where));
  Result<Corpus> tagged = AddLabelColumn(*data, predicted.value(), column, replace);
  ThrowIfError(tagged.status().Annotate(where));
  auto out = std::make_shared<Corpus>(std::move(tagged).value());
  ctx.Metric("sentences", static_cast<double>(out->sentences.size()));
  ctx.Metric("tokens", static_cast<double>(out->num_tokens()));
  ctx.Attach("preview.tsv", Preview(*out));
  return out;
}

// What decode.tag_shards reads: decode.tag's options and the shard size of its output.
struct TagShardsOptions {
  TagOptions tag;
  ShardSize shards;
};

// decode.tag over a Corpus or a ShardedCorpus, a storage shard at a time, into a ShardedCorpus:
// one shard of the input and one of the output are held at a time. Viterbi labels each sentence
// on its own, so the shards' columns are decode.tag's.
ArtifactPtr RunTagShards(NodeContext& ctx, const TagShardsOptions& options) {
  const TagOptions& tag = options.tag;
  const std::string where = "node '" + ctx.node_name() + "'";
  if (ctx.pieces() == nullptr) throw StatusError(Status::Invalid("decode.tag_shards needs a piece store (the cache)"));
  const ArtifactPtr data = ctx.inputs("data").at(0);
  const ChainModel& model = *ctx.In<ChainModel>("model");
  // The header (columns with the new one) from an empty range, before a pass over the text.
  const Corpus empty = ValueOrThrow(ValueOrThrow(SentenceRanges::Of(*data, ctx.pieces())).Range(0, 0));
  ThrowIfError(CheckLabelColumn(empty, tag.column, tag.replace).Annotate(where));
  ShardedCorpusWriter writer(ValueOrThrow(AddLabelColumn(empty, Predictions(), tag.column, tag.replace)),
                             options.shards.shard_sentences, ctx.pieces());
  std::string preview;
  ThrowIfError(ForEachCorpusShard(*data, ctx.pieces(), [&](const Corpus& shard) -> Status {
    SEQFLOW_RETURN_IF_ERROR(ctx.cancellation().Check("tagging " + shard.source));
    SEQFLOW_ASSIGN_OR_RETURN(Predictions predicted,
                             DecodeCorpus(model, shard, DecodeMethod::kViterbi, false, ctx.threads()));
    SEQFLOW_ASSIGN_OR_RETURN(Corpus tagged, AddLabelColumn(shard, predicted, tag.column, tag.replace));
    if (preview.empty()) preview = Preview(tagged);
    for (Sentence& sentence : tagged.sentences) SEQFLOW_RETURN_IF_ERROR(writer.Add(std::move(sentence)));
    return Status::Ok();
  }).Annotate(where));
  std::shared_ptr<ShardedCorpus> out = ValueOrThrow(std::move(writer).Finish());
  ctx.Metric("sentences", static_cast<double>(out->num_sentences()));
  ctx.Metric("tokens", static_cast<double>(out->num_tokens()));
  ctx.Metric("shards", static_cast<double>(out->shards.size()));
  ctx.Attach("preview.tsv", preview.empty() ? Preview(empty) : preview);
  return out;
}

std::string CheckColumnName(const ParamValue& v) {
  const std::string& name = std::get<std::string>(v);
  if (name.empty()) return "must not be empty";
  if (name == "word") return "must not be 'word' (column 0 holds the words)";
  return "";
}

ParamTable<TagOptions> TagParams() {
  ParamTable<TagOptions> table;
  table.String("column", &TagOptions::column, "name of the new column")
      .Check(CheckColumnName)
      .Bool("replace", &TagOptions::replace, "overwrite the column if the corpus already has one of that name");
  return table;
}

ParamTable<TagShardsOptions> TagShardsParams() {
  ParamTable<TagShardsOptions> table;
  table.Include(&TagShardsOptions::tag, TagParams()).Include(&TagShardsOptions::shards, ShardParams());
  return table;
}

}  // namespace

Status CheckLabelColumn(const Corpus& data, const std::string& column, bool replace) {
  const int index = data.ColumnIndex(column);
  if (index == 0) return Status::Invalid("column '" + column + "' holds the words and cannot receive labels");
  if (index > 0 && !replace)
    return Status::Invalid("the corpus already has a column '" + column +
                           "'; set replace: true or pick another column");
  return Status::Ok();
}

Result<Corpus> AddLabelColumn(const Corpus& data, const Predictions& predicted, const std::string& column,
                              bool replace) {
  SEQFLOW_RETURN_IF_ERROR(CheckLabelColumn(data, column, replace));
  if (predicted.labels.size() != data.sentences.size())
    return Status::Internal("predictions cover " + std::to_string(predicted.labels.size()) + " sentences, the corpus " +
                            std::to_string(data.sentences.size()));
  Corpus out = data;
  int index = out.ColumnIndex(column);
  if (index < 0) {
    index = static_cast<int>(out.columns.size());
    out.columns.push_back(column);
  }
  const auto num_labels = static_cast<int32_t>(predicted.label_names.size());
  for (size_t n = 0; n < out.sentences.size(); ++n) {
    Sentence& s = out.sentences[n];
    const std::vector<int32_t>& labels = predicted.labels[n];
    if (labels.size() != s.size())
      return Status::Internal("sentence " + std::to_string(n + 1) + " has " + std::to_string(s.size()) +
                              " tokens but " + std::to_string(labels.size()) + " predicted labels");
    s.cols.resize(out.columns.size());
    std::vector<std::string>& col = s.cols[static_cast<size_t>(index)];
    col.clear();
    col.reserve(labels.size());
    for (int32_t id : labels) {
      if (id < 0 || id >= num_labels)
        return Status::Internal("predicted label id " + std::to_string(id) + " out of range");
      col.push_back(predicted.label_names[static_cast<size_t>(id)]);
    }
  }
  return out;
}

void RegisterTagNode(Registry& registry) {
  registry.AddKind(KindSpec{
      "decode.tag",
      "1",
      "Adds the model's Viterbi labels to the corpus as a new column (e.g. POS tags for unlabeled text, from a "
      "tagger trained in the same pipeline). The corpus's own gold labels and encoding are kept; attaches the "
      "first sentences as preview.tsv.",
      std::string(Corpus::kType),
      {ModelPort("the chain model (HMM, CRF, hybrid, ...) whose labels fill the column"),
       PortSpec{"data", std::string(Corpus::kType), false, false, "sentences to tag (gold labels kept, not used)"}},
      TagParams(),
      RunTag}
                       .Needing({.parallel = true, .memory_mb = 2048}));
  registry.AddKind(KindSpec{
      "decode.tag_shards",
      "1",
      "decode.tag over a Corpus or a ShardedCorpus, read and written a shard at a time: the tagged sentences are "
      "stored in the cache as shards of shard_sentences sentences (a ShardedCorpus), the same columns as "
      "decode.tag's. For unlabeled text larger than memory (read.text_shards, then this).",
      std::string(ShardedCorpus::kType),
      {ModelPort("the chain model (HMM, CRF, hybrid, ...) whose labels fill the column"),
       PortSpec{"data", std::string(kSentencesInterface), false, false,
                "sentences to tag, a Corpus or a ShardedCorpus (gold labels kept, not used)"}},
      TagShardsParams(),
      RunTagShards}
                       .Needing({.parallel = true, .memory_mb = 1024}));
}

}  // namespace seqflow

// decode.tag: Viterbi-decode a corpus and keep the labels as a column of it.
#include "nodes/decode/tag_node.h"

#include <algorithm>
#include <memory>

#include "engine/api/node.h"
#include "nodes/decode/decode_nodes.h"

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
}

}  // namespace seqflow

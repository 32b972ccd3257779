// Adapters between the engine and the reading / splitting kernels.
#include "nodes/io/io_nodes.h"

#include "engine/api/node.h"
#include "nodes/io/conll_reader.h"
#include "nodes/io/gzip.h"
#include "nodes/io/split.h"

namespace seqflow {

namespace {

ParamSpec FileEncodingParam() {
  return ParamSpec::Enum("file_encoding", {"utf-8", "latin-1"}, "utf-8",
                         "bytes of the file; latin-1 is converted to UTF-8, invalid UTF-8 is an error");
}

void ReportSize(NodeContext& ctx, const Corpus& corpus) {
  ctx.Metric("sentences", static_cast<double>(corpus.sentences.size()));
  ctx.Metric("tokens", static_cast<double>(corpus.num_tokens()));
}

ArtifactPtr RunReadConll(NodeContext& ctx) {
  const Params& p = ctx.params();
  const std::string& path = p.GetString("path");
  ConllOptions options;
  options.columns = p.GetStrings("columns");
  options.label_column = p.GetString("label_column");
  options.encoding = ParseTagEncoding(p.GetString("encoding"));
  options.file_encoding = ParseFileEncoding(p.GetString("file_encoding"));
  options.separator = ParseSeparator(p.GetString("separator"));
  std::string bytes = ValueOrThrow(ctx.ReadFile(path));
  auto corpus = std::make_shared<Corpus>(ValueOrThrow(ParseConll(bytes, path, options)));
  ReportSize(ctx, *corpus);
  ctx.Metric("labels", static_cast<double>(corpus->label_names.size()));
  return corpus;
}

ArtifactPtr RunReadText(NodeContext& ctx) {
  const Params& p = ctx.params();
  const std::string& path = p.GetString("path");
  std::string bytes = ValueOrThrow(ctx.ReadFile(path));
  if (IsGzip(bytes)) bytes = ValueOrThrow(Gunzip(bytes, path));
  auto corpus = std::make_shared<Corpus>(ValueOrThrow(
      ParseTextLines(bytes, path, p.GetInt("max_sentences"), ParseFileEncoding(p.GetString("file_encoding")))));
  ReportSize(ctx, *corpus);
  return corpus;
}

ArtifactPtr RunSplit(NodeContext& ctx) {
  const Params& p = ctx.params();
  SplitOptions options;
  options.seed = static_cast<uint64_t>(p.GetInt("seed"));
  options.count = p.GetInt("count");
  options.skip = p.GetInt("skip");
  options.shuffle = p.GetBool("shuffle");
  options.drop_labels = p.GetBool("drop_labels");
  auto corpus = std::make_shared<Corpus>(ValueOrThrow(SplitCorpus(*ctx.In<Corpus>("data"), options)));
  ReportSize(ctx, *corpus);
  return corpus;
}

KindSpec ReadConllKind() {
  return KindSpec{"read.conll",
                  "1",
                  "Reads a CoNLL column file (one token a line, blank line between sentences) into a labeled "
                  "Corpus. -DOCSTART- lines are skipped; label ids follow the sorted label names.",
                  std::string(Corpus::kType),
                  {},
                  {ParamSpec::Path("path", "the CoNLL file"),
                   ParamSpec::StringList(
                       "columns", {}, "column names in file order, the first 'word' (default: word, col1, ..., label)"),
                   ParamSpec::String("label_column", "", "name of the gold label column (default: the last column)"),
                   ParamSpec::Enum("encoding", {"iob1", "iob2", "runs"}, "iob2",
                                   "how labels form segments; runs: a segment is a maximal run of one label"),
                   FileEncodingParam(),
                   ParamSpec::Enum("separator", {"whitespace", "tab"}, "whitespace",
                                   "tab splits only on tabs, so tokens may contain spaces or U+00A0")},
                  RunReadConll};
}

KindSpec ReadTextKind() {
  return KindSpec{
      "read.text",
      "1",
      "Reads raw text, one sentence a line, whitespace-separated tokens, into an unlabeled Corpus. A gzip "
      "file (known by its magic bytes, whatever its name) is decompressed first.",
      std::string(Corpus::kType),
      {},
      {ParamSpec::Path("path", "the text file, plain or gzip-compressed"),
       ParamSpec::Int("max_sentences", 0, "read at most this many sentences (0: all)").Min(0), FileEncodingParam()},
      RunReadText};
}

KindSpec SplitKind() {
  return KindSpec{"split",
                  "1",
                  "Takes `count` sentences after skipping `skip` in a seeded random order; splits with one seed and "
                  "disjoint ranges are disjoint. The part keeps the original sentence order.",
                  std::string(Corpus::kType),
                  {PortSpec{"data", std::string(Corpus::kType), false, false, "the corpus to split"}},
                  {ParamSpec::Int("seed", 1, "seed of the sentence order"),
                   ParamSpec::Int("count", 0, "sentences to take (0: all remaining)").Min(0),
                   ParamSpec::Int("skip", 0, "sentences to skip first, in the shuffled order").Min(0),
                   ParamSpec::Bool("shuffle", true, "shuffle before taking; false takes sentences in file order"),
                   ParamSpec::Bool("drop_labels", false, "make the part unlabeled (an unlabeled pool)")},
                  RunSplit};
}

}  // namespace

void RegisterIoNodes(Registry& registry) {
  registry.AddArtifactType<Corpus>();
  registry.AddKind(ReadConllKind());
  registry.AddKind(ReadTextKind());
  registry.AddKind(SplitKind());
}

}  // namespace seqflow

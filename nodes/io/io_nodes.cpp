// Adapters between the engine and the reading / splitting kernels.
#include "nodes/io/io_nodes.h"

#include <numeric>
#include <optional>

#include "engine/api/node.h"
#include "nodes/io/class_sequences_node.h"
#include "nodes/io/concat.h"
#include "nodes/io/conll_reader.h"
#include "nodes/io/draw_node.h"
#include "nodes/io/gzip.h"
#include "nodes/io/rewrite_rules.h"
#include "nodes/io/shard_params.h"
#include "nodes/io/sharded_corpus.h"
#include "nodes/io/split.h"
#include "nodes/io/tagged_reader.h"
#include "nodes/io/write_conll_node.h"

namespace seqflow {

namespace {

// What read.conll reads: the file and how to parse it.
struct ReadConllNodeOptions {
  std::string path;
  std::string map;  // "" = labels as written
  ConllOptions conll;
};

// What read.conll_shards reads: read.conll's options and the shard size.
struct ReadConllShardsNodeOptions {
  ReadConllNodeOptions conll;
  ShardSize shards;
};

// What read.tagged reads: the file, an optional tag map, and how to parse it.
struct ReadTaggedNodeOptions {
  std::string path;
  std::string map;  // "" = tags as written
  TaggedTextOptions tagged;
};

// What read.text reads (ParseTextLines's arguments).
struct ReadTextNodeOptions {
  std::string path;
  std::string rewrite;        // "" = tokens as written
  int64_t max_sentences = 0;  // 0: all
  FileEncoding file_encoding = FileEncoding::kUtf8;
};

// What read.text_shards reads: read.text's options and the shard size.
struct ReadTextShardsNodeOptions {
  ReadTextNodeOptions text;
  ShardSize shards;
};

// `file_encoding`, shared by both readers.
template <class O, class F>
void AddFileEncoding(ParamTable<O>& table, F field) {
  table.Enum("file_encoding", field, {FileEncoding::kUtf8, FileEncoding::kLatin1}, FileEncodingName,
             "bytes of the file; latin-1 is converted to UTF-8, invalid UTF-8 is an error");
}

void ReportSize(NodeContext& ctx, const Corpus& corpus) {
  ctx.Metric("sentences", static_cast<double>(corpus.sentences.size()));
  ctx.Metric("tokens", static_cast<double>(corpus.num_tokens()));
}

// The tag map at `path`, or null when no map is given.
std::shared_ptr<const TagMap> LoadTagMap(NodeContext& ctx, const std::string& path) {
  if (path.empty()) return nullptr;
  return std::make_shared<const TagMap>(ValueOrThrow(ParseTagMap(ValueOrThrow(ctx.ReadFile(path)), path)));
}

Corpus ReadConllFile(NodeContext& ctx, const ReadConllNodeOptions& options) {
  std::string bytes = ValueOrThrow(ctx.ReadFile(options.path));
  ConllOptions conll = options.conll;
  conll.tag_map = LoadTagMap(ctx, options.map);
  return ValueOrThrow(ParseConll(bytes, options.path, conll));
}

ArtifactPtr RunReadConll(NodeContext& ctx, const ReadConllNodeOptions& options) {
  auto corpus = std::make_shared<Corpus>(ReadConllFile(ctx, options));
  ReportSize(ctx, *corpus);
  ctx.Metric("labels", static_cast<double>(corpus->label_names.size()));
  return corpus;
}

// read.conll's corpus stored as shards: the file is parsed whole, as read.conll parses it (its
// label ids follow every label of the file), then handed to the writer a sentence at a time.
ArtifactPtr RunReadConllShards(NodeContext& ctx, const ReadConllShardsNodeOptions& options) {
  if (ctx.pieces() == nullptr) throw StatusError(Status::Invalid("read.conll_shards needs a piece store (the cache)"));
  Corpus read = ReadConllFile(ctx, options.conll);
  ShardedCorpusWriter writer(read, options.shards.shard_sentences, ctx.pieces());
  for (Sentence& s : read.sentences) ThrowIfError(writer.Add(std::move(s)));
  auto corpus = ValueOrThrow(std::move(writer).Finish());
  ctx.Metric("sentences", static_cast<double>(corpus->num_sentences()));
  ctx.Metric("tokens", static_cast<double>(corpus->num_tokens()));
  ctx.Metric("labels", static_cast<double>(corpus->label_names.size()));
  ctx.Metric("shards", static_cast<double>(corpus->shards.size()));
  return corpus;
}

ArtifactPtr RunReadTagged(NodeContext& ctx, const ReadTaggedNodeOptions& options) {
  std::string bytes = ValueOrThrow(ctx.ReadFile(options.path));
  TaggedTextOptions tagged = options.tagged;
  tagged.tag_map = LoadTagMap(ctx, options.map);
  auto corpus = std::make_shared<Corpus>(ValueOrThrow(ParseTaggedLines(bytes, options.path, tagged)));
  ReportSize(ctx, *corpus);
  ctx.Metric("labels", static_cast<double>(corpus->label_names.size()));
  return corpus;
}

// One line per rule: its line in the rule file, its matches, the rule as written.
std::string RewriteReport(const RewriteRules& rules, const std::vector<int64_t>& matches) {
  std::string report = "line\tmatches\trule\n";
  for (size_t r = 0; r < rules.rules.size(); ++r)
    report += std::to_string(rules.rules[r].line) + "\t" + std::to_string(matches[r]) + "\t" + rules.rules[r].text + "\n";
  return report;
}

ArtifactPtr RunReadText(NodeContext& ctx, const ReadTextNodeOptions& options) {
  std::string bytes = ValueOrThrow(ctx.ReadFile(options.path));
  if (IsGzip(bytes)) bytes = ValueOrThrow(Gunzip(bytes, options.path));
  auto corpus = std::make_shared<Corpus>(
      ValueOrThrow(ParseTextLines(bytes, options.path, options.max_sentences, options.file_encoding)));
  if (!options.rewrite.empty()) {
    const RewriteRules rules = ValueOrThrow(ParseRewriteRules(ValueOrThrow(ctx.ReadFile(options.rewrite)), options.rewrite));
    const size_t tokens_before = corpus->num_tokens();
    const std::vector<int64_t> matches = ValueOrThrow(RewriteCorpus(rules, *corpus, ctx.cancellation()));
    ctx.Metric("tokens_before_rewrite", static_cast<double>(tokens_before));
    ctx.Metric("rewrites", static_cast<double>(std::accumulate(matches.begin(), matches.end(), int64_t{0})));
    ctx.Attach("rewrites.tsv", RewriteReport(rules, matches));
  }
  ReportSize(ctx, *corpus);
  return corpus;
}

// read.text's sentences, rewritten as it rewrites them, stored a shard at a time: at most one
// shard of sentences is held (the file's bytes are read whole, as read.text reads them).
ArtifactPtr RunReadTextShards(NodeContext& ctx, const ReadTextShardsNodeOptions& options) {
  const ReadTextNodeOptions& text = options.text;
  if (ctx.pieces() == nullptr) throw StatusError(Status::Invalid("read.text_shards needs a piece store (the cache)"));
  std::string bytes = ValueOrThrow(ctx.ReadFile(text.path));
  if (IsGzip(bytes)) bytes = ValueOrThrow(Gunzip(bytes, text.path));
  std::optional<RewriteRules> rules;
  if (!text.rewrite.empty())
    rules = ValueOrThrow(ParseRewriteRules(ValueOrThrow(ctx.ReadFile(text.rewrite)), text.rewrite));
  Corpus header;
  header.columns = {"word"};
  header.source = text.path;
  ShardedCorpusWriter writer(header, options.shards.shard_sentences, ctx.pieces());
  RewriteMemo memo;
  std::vector<int64_t> matches(rules ? rules->rules.size() : 0, 0);
  int64_t read = 0, tokens_before = 0;
  const CancelToken cancel = ctx.cancellation();
  ThrowIfError(ForEachTextSentence(std::move(bytes), text.path, text.max_sentences, text.file_encoding, [&](Sentence&& s) {
    if (++read % 4096 == 0) SEQFLOW_RETURN_IF_ERROR(cancel.Check("reading " + text.path));
    tokens_before += static_cast<int64_t>(s.size());
    if (rules) SEQFLOW_RETURN_IF_ERROR(RewriteTokens(*rules, s.cols[0], memo, matches));
    return s.size() == 0 ? Status::Ok() : writer.Add(std::move(s));
  }));
  auto corpus = ValueOrThrow(std::move(writer).Finish());
  if (read == 0) throw StatusError(Status::Invalid("empty file: no sentences", SourceLoc{text.path}));
  if (corpus->shards.empty())
    throw StatusError(Status::Invalid("rewrite rules '" + rules->file + "' leave no token", SourceLoc{text.path}));
  if (rules) {
    ctx.Metric("tokens_before_rewrite", static_cast<double>(tokens_before));
    ctx.Metric("rewrites", static_cast<double>(std::accumulate(matches.begin(), matches.end(), int64_t{0})));
    ctx.Attach("rewrites.tsv", RewriteReport(*rules, matches));
  }
  ctx.Metric("sentences", static_cast<double>(corpus->num_sentences()));
  ctx.Metric("tokens", static_cast<double>(corpus->num_tokens()));
  ctx.Metric("shards", static_cast<double>(corpus->shards.size()));
  return corpus;
}

struct ConcatOptions {};

ArtifactPtr RunConcat(NodeContext& ctx, const ConcatOptions&) {
  std::vector<const Corpus*> parts;
  const auto inputs = ctx.InList<Corpus>("data");
  for (const auto& c : inputs) parts.push_back(c.get());
  auto corpus = std::make_shared<Corpus>(ValueOrThrow(ConcatCorpora(parts)));
  ReportSize(ctx, *corpus);
  return corpus;
}

ArtifactPtr RunSplit(NodeContext& ctx, const SplitOptions& options) {
  auto corpus = std::make_shared<Corpus>(ValueOrThrow(SplitCorpus(*ctx.In<Corpus>("data"), options)));
  ReportSize(ctx, *corpus);
  return corpus;
}

ParamTable<ReadConllNodeOptions> ReadConllParams() {
  using O = ReadConllNodeOptions;
  auto conll = [](auto member) { return At(&O::conll, member); };
  ParamTable<O> table;
  table.Path("path", &O::path, "the CoNLL file")
      .OptionalPath("map", &O::map, "two-column tag map FROM TO applied to every label; an unmapped label is an error")
      .StringList("columns", conll(&ConllOptions::columns),
                  "column names in file order, the first 'word' (default: word, col1, ..., label)")
      .String("label_column", conll(&ConllOptions::label_column),
              "name of the gold label column (default: the last column)")
      .Enum("encoding", conll(&ConllOptions::encoding),
            {TagEncoding::kIob1, TagEncoding::kIob2, TagEncoding::kRuns}, TagEncodingName,
            "how labels form segments; runs: a segment is a maximal run of one label");
  AddFileEncoding(table, conll(&ConllOptions::file_encoding));
  table.Enum("separator", conll(&ConllOptions::separator),
             {Separator::kWhitespace, Separator::kTab}, SeparatorName,
             "tab splits only on tabs, so tokens may contain spaces or U+00A0");
  return table;
}

ParamTable<ReadConllShardsNodeOptions> ReadConllShardsParams() {
  using O = ReadConllShardsNodeOptions;
  ParamTable<O> table;
  table.Include(&O::conll, ReadConllParams()).Include(&O::shards, ShardParams());
  return table;
}

ParamTable<ReadTaggedNodeOptions> ReadTaggedParams() {
  using O = ReadTaggedNodeOptions;
  auto tagged = [](auto member) { return At(&O::tagged, member); };
  ParamTable<O> table;
  table.Path("path", &O::path, "the word|tag file, one sentence a line")
      .OptionalPath("map", &O::map, "two-column tag map FROM TO applied to every tag; an unmapped tag is an error")
      .String("delimiter", tagged(&TaggedTextOptions::delimiter), "joins word and tag; a token splits on its last one")
      .Check([](const ParamValue& v) { return std::get<std::string>(v).empty() ? "must not be empty" : ""; })
      .Enum("encoding", tagged(&TaggedTextOptions::encoding),
            {TagEncoding::kIob1, TagEncoding::kIob2, TagEncoding::kRuns}, TagEncodingName,
            "how labels form segments; runs: a segment is a maximal run of one label");
  AddFileEncoding(table, tagged(&TaggedTextOptions::file_encoding));
  return table;
}

ParamTable<ReadTextNodeOptions> ReadTextParams() {
  using O = ReadTextNodeOptions;
  ParamTable<O> table;
  table.Path("path", &O::path, "the text file, plain or gzip-compressed")
      .OptionalPath("rewrite", &O::rewrite,
                    "rewrite rules applied to the tokens as read (nodes/io/rewrite_rules.h: FROM... => TO..., "
                    "regex: PATTERN => TO...); the file's content is part of the cache key")
      .Int("max_sentences", &O::max_sentences, "read at most this many sentences (0: all)")
      .Min(0);
  AddFileEncoding(table, &O::file_encoding);
  return table;
}

ParamTable<ReadTextShardsNodeOptions> ReadTextShardsParams() {
  using O = ReadTextShardsNodeOptions;
  ParamTable<O> table;
  table.Include(&O::text, ReadTextParams()).Include(&O::shards, ShardParams());
  return table;
}

ParamTable<SplitOptions> SplitParams() {
  using O = SplitOptions;
  ParamTable<O> table;
  table.Int("seed", &O::seed, "seed of the sentence order")
      .Int("count", &O::count, "sentences to take (0: all remaining)")
      .Min(0)
      .Int("skip", &O::skip, "sentences to skip first, in the shuffled order")
      .Min(0)
      .Bool("shuffle", &O::shuffle, "shuffle before taking; false takes sentences in file order")
      .Bool("drop_labels", &O::drop_labels, "make the part unlabeled (an unlabeled pool)");
  return table;
}

KindSpec ReadConllKind() {
  return KindSpec{"read.conll",
                  "1",
                  "Reads a CoNLL column file (one token a line, blank line between sentences) into a labeled "
                  "Corpus. -DOCSTART- lines are skipped; label ids follow the sorted label names.",
                  std::string(Corpus::kType),
                  {},
                  ReadConllParams(),
                  RunReadConll};
}

KindSpec ReadConllShardsKind() {
  return KindSpec{"read.conll_shards",
                  "1",
                  "read.conll's corpus stored in the cache as shards of shard_sentences sentences (ShardedCorpus): "
                  "ports typed Sentences stream them, with the bits they give read.conll's Corpus.",
                  std::string(ShardedCorpus::kType),
                  {},
                  ReadConllShardsParams(),
                  RunReadConllShards};
}

KindSpec ReadTaggedKind() {
  return KindSpec{"read.tagged",
                  "1",
                  "Reads word|tag text, one sentence a line (Garrette & Baldridge's Malagasy files), into a labeled "
                  "Corpus; a token splits on its last delimiter; label ids follow the sorted label names.",
                  std::string(Corpus::kType),
                  {},
                  ReadTaggedParams(),
                  RunReadTagged};
}

KindSpec ReadTextKind() {
  return KindSpec{"read.text",
                  "1",
                  "Reads raw text, one sentence a line, whitespace-separated tokens, into an unlabeled Corpus. A gzip "
                  "file (known by its magic bytes, whatever its name) is decompressed first.",
                  std::string(Corpus::kType),
                  {},
                  ReadTextParams(),
                  RunReadText};
}

KindSpec ReadTextShardsKind() {
  return KindSpec{"read.text_shards",
                  "1",
                  "read.text's sentences stored in the cache as shards of shard_sentences sentences "
                  "(ShardedCorpus), read and written one shard at a time: ports typed Sentences stream them, "
                  "with the bits they give read.text's Corpus.",
                  std::string(ShardedCorpus::kType),
                  {},
                  ReadTextShardsParams(),
                  RunReadTextShards};
}

KindSpec SplitKind() {
  return KindSpec{"split",
                  "1",
                  "Takes `count` sentences after skipping `skip` in a seeded random order; splits with one seed and "
                  "disjoint ranges are disjoint. The part keeps the original sentence order.",
                  std::string(Corpus::kType),
                  {PortSpec{"data", std::string(Corpus::kType), false, false, "the corpus to split"}},
                  SplitParams(),
                  RunSplit};
}

KindSpec ConcatKind() {
  return KindSpec{"concat",
                  "1",
                  "The sentences of every input in input order (e.g. a data set's train, dev and test files, to "
                  "re-split with seeded `split` nodes); label ids follow the sorted union of the label names.",
                  std::string(Corpus::kType),
                  {PortSpec{"data", std::string(Corpus::kType), true, false, "the corpora, in order"}},
                  ParamTable<ConcatOptions>(),
                  RunConcat};
}

}  // namespace

void RegisterIoNodes(Registry& registry) {
  registry.AddArtifactType<Corpus>({std::string(kSentencesInterface)});
  registry.AddArtifactType<ShardedCorpus>({std::string(kSentencesInterface)});
  registry.AddKind(ReadConllKind());
  registry.AddKind(ReadConllShardsKind());
  registry.AddKind(ReadTaggedKind());
  registry.AddKind(ReadTextKind());
  registry.AddKind(ReadTextShardsKind());
  registry.AddKind(SplitKind());
  registry.AddKind(ConcatKind());
  RegisterDrawNode(registry);
  RegisterClassSequencesNodes(registry);
  RegisterWriteConllNode(registry);
}

}  // namespace seqflow

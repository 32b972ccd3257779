// Adapters between the engine and the feature kernels.
#include "nodes/features/features_nodes.h"

#include "engine/api/node.h"
#include "nodes/features/cca_node.h"
#include "nodes/features/feature_templates.h"
#include "nodes/features/sharded_feature_set.h"
#include "nodes/features/template_params.h"
#include "nodes/features/views_node.h"
#include "nodes/features/vocab_builder.h"
#include "nodes/io/sharded_corpus.h"

namespace seqflow {

namespace {

// What features.vocab reads: the counting options and how many of its inputs count.
struct VocabNodeOptions {
  VocabOptions vocab;
  int64_t counted_inputs = 0;
};

ArtifactPtr RunVocab(NodeContext& ctx, const VocabNodeOptions& options) {
  const std::vector<ArtifactPtr> inputs = ctx.inputs("data");
  if (options.counted_inputs > static_cast<int64_t>(inputs.size()))
    throw StatusError(Status::Invalid("counted_inputs is " + std::to_string(options.counted_inputs) + " but port 'data' has " +
                                      std::to_string(inputs.size()) + " corpora"));
  // An ablation cannot rewire `in`; counted_inputs drops the later corpora (e.g. unlabeled text) instead.
  const size_t counted = options.counted_inputs > 0 ? static_cast<size_t>(options.counted_inputs) : inputs.size();
  WordCounts counts;
  for (size_t i = 0; i < counted; ++i)
    ThrowIfError(ForEachCorpusShard(*inputs[i], ctx.pieces(), [&](const Corpus& shard) {
      CountWords(shard, options.vocab.lowercase, counts);
      return Status::Ok();
    }));
  auto vocab = std::make_shared<Vocab>(KnownWords(counts, options.vocab.min_count), options.vocab.unknown,
                                       options.vocab.lowercase);
  ctx.Metric("known_words", vocab->num_known());
  ctx.Metric("size", vocab->size());
  return vocab;
}

ParamTable<VocabNodeOptions> VocabParams() {
  using O = VocabNodeOptions;
  auto vocab = [](auto member) { return At(&O::vocab, member); };
  ParamTable<O> table;
  table.Int("min_count", vocab(&VocabOptions::min_count), "occurrences a word needs to be known")
      .Min(1)
      .Enum("unknown", vocab(&VocabOptions::unknown), {UnknownScheme::kSingle, UnknownScheme::kShape}, UnknownSchemeName,
            "unknown-word classes: one <UNK>, or by shape")
      .Bool("lowercase", vocab(&VocabOptions::lowercase), "lowercase words before counting and lookup")
      .Int("counted_inputs", &O::counted_inputs, "count words in the first N corpora of 'data' only (0: all)")
      .Min(0);
  return table;
}

KindSpec VocabKind() {
  return KindSpec{"features.vocab",
                  "1",
                  "Word ids for HMMs and features: words seen at least min_count times over all inputs are known; "
                  "every other word maps to an unknown-word class (one <UNK>, or classes by word shape and suffix).",
                  std::string(Vocab::kType),
                  {PortSpec{"data", std::string(kSentencesInterface), true, false,
                            "corpora whose words are counted; a ShardedCorpus is read a shard at a time"}},
                  VocabParams(),
                  RunVocab};
}

// What features.templates reads: the templates (default set: the CoNLL-2000 chunking features)
// and the dictionary's threshold.
struct TemplatesNodeOptions {
  TemplateChoice features{"standard_chunking", {}};
  int min_count = 1;
};

void ReportFeatures(NodeContext& ctx, const FeatureDictionary& dictionary, int64_t tokens) {
  ctx.Metric("attributes", dictionary.num_attributes());
  ctx.Metric("templates", static_cast<double>(dictionary.templates().size()));
  ctx.Metric("tokens", static_cast<double>(tokens));
}

std::shared_ptr<FeatureDictionary> CompileTemplates(const TemplatesNodeOptions& options,
                                                    const std::vector<std::string>& columns) {
  return std::make_shared<FeatureDictionary>(
      ValueOrThrow(FeatureDictionary::Compile(ValueOrThrow(TemplatesOf(options.features)), columns)));
}

ArtifactPtr TemplatesOfCorpus(NodeContext& ctx, const Corpus& corpus, const TemplatesNodeOptions& options) {
  std::shared_ptr<FeatureDictionary> dictionary = CompileTemplates(options, corpus.columns);
  ThrowIfError(dictionary->Fit(corpus, options.min_count));
  auto out = std::make_shared<FeatureSet>();
  out->sentences = ValueOrThrow(dictionary->ExtractCorpus(corpus, ctx.threads()));
  if (corpus.labeled())
    for (const Sentence& s : corpus.sentences) out->labels.push_back(s.labels);
  out->label_names = corpus.label_names;
  out->encoding = corpus.encoding;
  out->dictionary = std::move(dictionary);
  ReportFeatures(ctx, *out->dictionary, static_cast<int64_t>(out->num_tokens()));
  return out;
}

// A ShardedCorpus: the dictionary is fitted over its shards streamed, then each shard's sentences
// are extracted and stored as a piece of their own, so at most one shard is held.
ArtifactPtr TemplatesOfShards(NodeContext& ctx, const ShardedCorpus& corpus, const TemplatesNodeOptions& options) {
  if (ctx.pieces() == nullptr) throw StatusError(Status::Invalid("a ShardedCorpus needs a piece store (the cache)"));
  std::shared_ptr<FeatureDictionary> dictionary = CompileTemplates(options, corpus.columns);
  ThrowIfError(dictionary->FitEach(
      [&](const FeatureDictionary::CorpusVisitor& visit) { return ForEachCorpusShard(corpus, ctx.pieces(), visit); },
      options.min_count));
  auto out = std::make_shared<ShardedFeatureSet>();
  out->label_names = corpus.label_names;
  out->encoding = corpus.encoding;
  out->labeled = !corpus.label_names.empty();  // as Corpus::labeled()
  out->shard_sentences = corpus.shard_sentences;
  ThrowIfError(ForEachCorpusShard(corpus, ctx.pieces(), [&](const Corpus& shard) -> Status {
    FeatureShard features;
    SEQFLOW_ASSIGN_OR_RETURN(features.sentences, dictionary->ExtractCorpus(shard, ctx.threads()));
    if (out->labeled)
      for (const Sentence& s : shard.sentences) features.labels.push_back(s.labels);
    SEQFLOW_ASSIGN_OR_RETURN(ShardedFeatureSet::Shard stored, StoreFeatureShard(features, ctx.pieces()));
    out->shards.push_back(std::move(stored));
    return Status::Ok();
  }));
  out->dictionary = std::move(dictionary);
  ReportFeatures(ctx, *out->dictionary, out->num_tokens());
  ctx.Metric("shards", static_cast<double>(out->shards.size()));
  return out;
}

ArtifactPtr RunTemplates(NodeContext& ctx, const TemplatesNodeOptions& options) {
  const ArtifactPtr data = ctx.inputs("data").at(0);
  if (const auto* corpus = dynamic_cast<const Corpus*>(data.get())) return TemplatesOfCorpus(ctx, *corpus, options);
  if (const auto* sharded = dynamic_cast<const ShardedCorpus*>(data.get()))
    return TemplatesOfShards(ctx, *sharded, options);
  throw StatusError(Status::Invalid("features.templates reads a Corpus or a ShardedCorpus, got " +
                                    std::string(data->type())));
}

ParamTable<TemplatesNodeOptions> TemplatesParams() {
  using O = TemplatesNodeOptions;
  ParamTable<O> table;
  table.Include(&O::features, TemplateParams())
      .Int("min_count", &O::min_count, "occurrences an attribute needs to be kept")
      .Min(1);
  return table;
}

KindSpec TemplatesKind() {
  return KindSpec{"features.templates",
                  "1",
                  "CRF attributes from feature templates (CRF++-style, e.g. word[-1]|word[0], shape(word[0]), "
                  "prefix3(word[0])): the dictionary of attributes seen at least min_count times in data, and every "
                  "sentence of data as attribute ids with its gold labels. A ShardedCorpus gives a ShardedFeatureSet "
                  "with its shards, read and written a shard at a time.",
                  std::string(FeatureSet::kType) + "|" + std::string(ShardedFeatureSet::kType),
                  {PortSpec{"data", std::string(kSentencesInterface), false, false,
                            "corpus the dictionary is fitted on (a ShardedCorpus is streamed)"}},
                  TemplatesParams(),
                  RunTemplates};
}

}  // namespace

void RegisterFeaturesNodes(Registry& registry) {
  registry.AddArtifactType<Vocab>();
  registry.AddKind(VocabKind().Needing({.parallel = true, .memory_mb = 2048}).FittingInputs({"data"}));
  registry.AddArtifactType<FeatureSet>({std::string(kLabeledFeaturesInterface)});
  registry.AddArtifactType<ShardedFeatureSet>({std::string(kLabeledFeaturesInterface)});
  registry.AddKind(TemplatesKind().Needing({.parallel = true, .memory_mb = 4096}).Fitting({"data"}));
  RegisterViewsNode(registry);
  RegisterCcaNode(registry);
}

}  // namespace seqflow

// Adapters between the engine and the feature kernels.
#include "nodes/features/features_nodes.h"

#include "engine/api/node.h"
#include "nodes/features/feature_templates.h"
#include "nodes/features/template_params.h"
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

ArtifactPtr RunTemplates(NodeContext& ctx, const TemplatesNodeOptions& options) {
  auto corpus = ctx.In<Corpus>("data");
  auto dictionary = std::make_shared<FeatureDictionary>(
      ValueOrThrow(FeatureDictionary::Compile(ValueOrThrow(TemplatesOf(options.features)), corpus->columns)));
  ThrowIfError(dictionary->Fit(*corpus, options.min_count));
  auto out = std::make_shared<FeatureSet>();
  out->sentences = ValueOrThrow(dictionary->ExtractCorpus(*corpus, ctx.threads()));
  if (corpus->labeled())
    for (const Sentence& s : corpus->sentences) out->labels.push_back(s.labels);
  out->label_names = corpus->label_names;
  out->encoding = corpus->encoding;
  out->dictionary = std::move(dictionary);
  ctx.Metric("attributes", out->dictionary->num_attributes());
  ctx.Metric("templates", static_cast<double>(out->dictionary->templates().size()));
  ctx.Metric("tokens", static_cast<double>(out->num_tokens()));
  return out;
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
                  "sentence of data as attribute ids with its gold labels.",
                  std::string(FeatureSet::kType),
                  {PortSpec{"data", std::string(Corpus::kType), false, false, "corpus the dictionary is fitted on"}},
                  TemplatesParams(),
                  RunTemplates};
}

}  // namespace

void RegisterFeaturesNodes(Registry& registry) {
  registry.AddArtifactType<Vocab>();
  registry.AddKind(VocabKind().Needing({.parallel = true, .memory_mb = 2048}).FittingInputs({"data"}));
  registry.AddArtifactType<FeatureSet>();
  registry.AddKind(TemplatesKind().Needing({.parallel = true, .memory_mb = 4096}).Fitting({"data"}));
}

}  // namespace seqflow

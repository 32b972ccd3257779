// Adapters between the engine and the feature kernels.
#include "nodes/features/features_nodes.h"

#include "engine/api/node.h"
#include "nodes/features/vocab_builder.h"

namespace seqflow {

namespace {

ArtifactPtr RunVocab(NodeContext& ctx) {
  const Params& p = ctx.params();
  VocabOptions options;
  options.min_count = p.GetInt("min_count");
  options.unknown = ParseUnknownScheme(p.GetString("unknown"));
  options.lowercase = p.GetBool("lowercase");
  auto inputs = ctx.InList<Corpus>("data");
  std::vector<const Corpus*> corpora;
  for (const auto& c : inputs) corpora.push_back(c.get());
  auto vocab = std::make_shared<Vocab>(BuildVocab(corpora, options));
  ctx.Metric("known_words", vocab->num_known());
  ctx.Metric("size", vocab->size());
  return vocab;
}

KindSpec VocabKind() {
  return KindSpec{
      "features.vocab",
      "1",
      "Word ids for HMMs and features: words seen at least min_count times over all inputs are known; "
      "every other word maps to an unknown-word class (one <UNK>, or classes by word shape and suffix).",
      std::string(Vocab::kType),
      {PortSpec{"data", std::string(Corpus::kType), true, false, "corpora whose words are counted"}},
      {ParamSpec::Int("min_count", 1, "occurrences a word needs to be known").Min(1),
       ParamSpec::Enum("unknown", {"single", "shape"}, "shape", "unknown-word classes: one <UNK>, or by shape"),
       ParamSpec::Bool("lowercase", false, "lowercase words before counting and lookup")},
      RunVocab};
}

}  // namespace

void RegisterFeaturesNodes(Registry& registry) {
  registry.AddArtifactType<Vocab>();
  registry.AddKind(VocabKind());
}

}  // namespace seqflow

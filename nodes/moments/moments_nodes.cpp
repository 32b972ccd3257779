// Adapters between the engine and the moments kernels (Marinho et al. 2016, Algorithm 1).
#include "nodes/moments/moments_nodes.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <utility>

#include "engine/api/node.h"
#include "nodes/common/distributed_shards.h"
#include "nodes/features/moments.h"
#include "nodes/features/projection.h"
#include "nodes/fhmm/word_features.h"
#include "nodes/hmm/hmm_model.h"
#include "nodes/hmm/supervised.h"
#include "nodes/io/sharded_corpus.h"
#include "nodes/moments/anchor_emissions.h"
#include "nodes/moments/anchor_fhmm_node.h"
#include "nodes/moments/anchor_model_inputs.h"
#include "nodes/moments/anchor_set.h"
#include "nodes/moments/anchors.h"
#include "nodes/moments/context_features.h"

namespace seqflow {

namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// n_L(w, h) over `labeled`, words as symbols of `vocab`, labels as ids of `label_names`.
Eigen::MatrixXd LabeledCounts(const Corpus& labeled, const Vocab& vocab, const std::vector<std::string>& label_names,
                              const std::string& port) {
  if (!labeled.labeled())
    throw StatusError(
        Status::Invalid("port '" + port + "' needs a labeled corpus, but '" + labeled.source + "' has no labels"));
  std::vector<int32_t> label_of(labeled.label_names.size());
  for (size_t i = 0; i < labeled.label_names.size(); ++i) {
    auto it = std::find(label_names.begin(), label_names.end(), labeled.label_names[i]);
    if (it == label_names.end())
      throw StatusError(Status::Invalid("label '" + labeled.label_names[i] + "' of '" + labeled.source + "' (port '" +
                                        port + "') is not a label of the labeled training data"));
    label_of[i] = static_cast<int32_t>(it - label_names.begin());
  }
  Eigen::MatrixXd counts = Eigen::MatrixXd::Zero(vocab.size(), static_cast<Eigen::Index>(label_names.size()));
  for (const Sentence& s : labeled.sentences)
    for (size_t t = 0; t < s.size(); ++t) counts(vocab.Id(s.words()[t]), label_of[s.labels[t]]) += 1;
  return counts;
}

// --- moments.collect ---

// The context features ψ(z) of moments.collect.
enum class ContextKind {
  kWords,     // one-hot previous and next symbol (moment_counts.h)
  kFeatures,  // word features of the previous and next word (context_features.h, §6.1)
};

struct CollectOptions {
  ContextKind contexts = ContextKind::kWords;
  int64_t min_count = 21;  // feature contexts: the paper keeps those seen more than 20 times
};

ArtifactPtr RunCollect(NodeContext& ctx, const CollectOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  auto moments = std::make_shared<Moments>();
  moments->vocab = ctx.In<Vocab>("vocab");
  std::vector<std::vector<int32_t>> sentences;
  // Only symbol ids are kept for the count: each shard of a ShardedCorpus is dropped once mapped,
  // and under MPI a rank loads only the shards holding sentences it counts (the others' sentences
  // stay empty here).
  for (const ArtifactPtr& corpus : ctx.inputs("data"))
    ThrowIfError(ForEachNeededCorpusShard(
        *corpus, ctx.pieces(), sentences.size(),
        [&](size_t begin, size_t end) {
          return MapsAnyShardOf(ctx.processes(), begin, end, kMomentCountShardSentences);
        },
        [&](const Corpus& shard) {
          auto ids = CorpusSymbols(*moments->vocab, shard);
          sentences.insert(sentences.end(), std::make_move_iterator(ids.begin()), std::make_move_iterator(ids.end()));
          return Status::Ok();
        },
        [&](size_t count) { sentences.resize(sentences.size() + count); }));
  moments->counts =
      ValueOrThrow(CollectMomentCounts(sentences, moments->vocab->size(), ctx.threads(), ctx.cancellation(),
                                       ctx.processes()));
  if (options.contexts == ContextKind::kFeatures) {
    ContextFeatures features =
        ValueOrThrow(BuildContextFeatures(BuildWordFeatures(*moments->vocab), moments->counts, options.min_count));
    moments->counts = MapContexts(moments->counts, features.map);
    moments->context_names = std::move(features.names);
    moments->context_map = std::move(features.map);
  }
  const double seconds = SecondsSince(start);
  ctx.Metric("tokens", static_cast<double>(moments->counts.tokens));
  ctx.Metric("symbols", moments->counts.num_symbols);
  ctx.Metric("contexts", moments->counts.num_contexts());
  ctx.Metric("nonzeros", static_cast<double>(moments->counts.cooccurrence.nonZeros()));
  ctx.Metric("seconds", seconds);
  ctx.Metric("tokens_per_second", seconds > 0 ? static_cast<double>(moments->counts.tokens) / seconds : 0);
  return moments;
}

ParamTable<CollectOptions> CollectParams() {
  using O = CollectOptions;
  ParamTable<O> table;
  table
      .Enum("contexts", &O::contexts, {{"words", ContextKind::kWords}, {"features", ContextKind::kFeatures}},
            "words: one-hot previous/next symbol; features: word features of the previous/next word "
            "(identity, case, shape, affixes, @/#/URL; BOS/EOS) as in the paper's section 6.1")
      .Int("min_count", &O::min_count,
           "features: keep the context features seen at least this often in the text (21: the paper's > 20); "
           "words: unused, the Vocab's min_count cuts")
      .Min(1);
  return table;
}

KindSpec CollectKind() {
  return KindSpec{
      "moments.collect",
      "2",
      "One pass over unlabeled text: co-occurrence counts of each word symbol with its context features, "
      "i.e. Q, q-bar and p-hat of Marinho et al. (2016) Eqs. 5-7. Contexts are the one-hot previous and next "
      "word symbol (BOS/EOS; the Vocab's min_count is the cut-off) or the word features of the previous and "
      "next word (section 6.1), kept when seen at least min_count times.",
      std::string(Moments::kType),
      {PortSpec{"vocab", std::string(Vocab::kType), false, false, "word symbols (rare words pooled)"},
       PortSpec{"data", std::string(kSentencesInterface), true, false,
                "unlabeled corpora (labels ignored); a ShardedCorpus is read a shard at a time"}},
      CollectParams(),
      RunCollect};
}

// --- moments.anchors ---

ArtifactPtr RunAnchors(NodeContext& ctx, const AnchorOptions& options) {
  auto moments = ctx.In<Moments>("moments");
  auto labeled = ctx.In<Corpus>("labeled");
  const Vocab& vocab = *moments->vocab;
  AnchorInputs in;
  in.label_names = &labeled->label_names;
  in.num_known = vocab.num_known();
  in.labeled_counts = LabeledCounts(*labeled, vocab, labeled->label_names, "labeled");
  in.unlabeled_counts = moments->counts.word_counts;
  if (auto dictionary = ctx.InOptional<Corpus>("dictionary")) {
    Eigen::MatrixXd listed = LabeledCounts(*dictionary, vocab, labeled->label_names, "dictionary");
    in.dictionary.resize(static_cast<size_t>(vocab.size()));
    for (int32_t w = 0; w < vocab.num_known(); ++w)
      for (Eigen::Index h = 0; h < listed.cols(); ++h)
        if (listed(w, h) > 0) in.dictionary[w].push_back(static_cast<int32_t>(h));
  }
  auto out = std::make_shared<AnchorSet>();
  out->label_names = labeled->label_names;
  out->symbols = ValueOrThrow(SelectAnchors(in, options));
  size_t total = 0;
  for (size_t h = 0; h < out->symbols.size(); ++h) {
    std::vector<std::string> words;
    for (int32_t w : out->symbols[h]) words.push_back(vocab.Name(w));
    out->words.push_back(std::move(words));
    total += out->symbols[h].size();
    ctx.Metric("anchors." + out->label_names[h], static_cast<double>(out->symbols[h].size()));
  }
  ctx.Metric("anchors", static_cast<double>(total));
  ctx.Metric("unanchored_labels", static_cast<double>(std::count_if(out->symbols.begin(), out->symbols.end(),
                                                                    [](const auto& a) { return a.empty(); })));
  return out;
}

ParamTable<AnchorOptions> AnchorParams() {
  using O = AnchorOptions;
  ParamTable<O> table;
  table.Int("max_per_label", &O::max_per_label, "keep at most this many anchors per label, most frequent first")
      .Min(1)
      .Double("threshold", &O::threshold, "minimum labeled p(h|w) of a token anchor")
      .Greater(0)
      .Max(1)
      .Int("min_labeled_count", &O::min_labeled_count, "minimum labeled occurrences of a token anchor")
      .Min(1)
      .Int("min_unlabeled_count", &O::min_unlabeled_count, "minimum unlabeled occurrences of any anchor")
      .Min(1)
      .Bool("allow_unanchored", &O::allow_unanchored,
            "let a label have no anchor (the anchor HMM then takes its contexts from its labeled tokens)");
  return table;
}

KindSpec AnchorsKind() {
  return KindSpec{
      "moments.anchors",
      "1",
      "Anchor words per label (Marinho et al. 2016, sections 3.2 and 5): words whose labeled p(h|w) reaches "
      "the threshold (token supervision) or that a tag dictionary lists with one label only (type), most "
      "frequent in the unlabeled text first. A label with no anchor fails the node, naming the label.",
      std::string(AnchorSet::kType),
      {PortSpec{"moments", std::string(Moments::kType), false, false, "unlabeled moments and their Vocab"},
       PortSpec{"labeled", std::string(Corpus::kType), false, false, "token supervision; fixes the labels"},
       PortSpec{"dictionary", std::string(Corpus::kType), false, true,
                "type supervision: word|tag entries (read.tagged), one or more tags per word"}},
      AnchorParams(),
      RunAnchors};
}

// --- moments.anchor_hmm ---

struct AnchorHmmNodeOptions {
  AnchorEmissionOptions emissions;
  HmmSmoothing smoothing{1.0, 1.0, 1.0};  // add-one on transitions (section 3.5)
};

ArtifactPtr RunAnchorHmm(NodeContext& ctx, const AnchorHmmNodeOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const auto [moments, anchors, labeled] = ReadAnchorModelInputs(ctx);
  const Vocab& vocab = *moments->vocab;
  std::vector<std::vector<int32_t>> labels;
  for (const Sentence& s : labeled->sentences) labels.push_back(s.labels);
  const auto k = static_cast<int32_t>(labeled->label_names.size());
  LabeledMoments labeled_moments;
  labeled_moments.word_label = LabeledCounts(*labeled, vocab, labeled->label_names, "labeled");
  labeled_moments.context_label =
      moments->MapContexts(LabeledContextCounts(CorpusSymbols(vocab, *labeled), labels, vocab.size(), k));
  AnchorEmissionOptions emission_options = options.emissions;
  emission_options.threads = ctx.threads();
  auto projection = ctx.InOptional<Projection>("projection");
  AnchorEmissions emissions = ValueOrThrow(EstimateAnchorEmissions(
      moments->counts, anchors->symbols, labeled_moments, labeled->label_names, emission_options, ctx.cancellation(),
      projection ? &projection->context_projection : nullptr));
  auto model = std::make_shared<HmmModel>();
  model->label_names = labeled->label_names;
  model->encoding = labeled->encoding;
  model->vocab = moments->vocab;
  model->params = EstimateSupervisedHmm(CorpusSymbols(vocab, *labeled), labels, k, vocab.size(), options.smoothing);
  model->params.emission = std::move(emissions.emission);
  ThrowIfError(ValidateHmmModel(*model, 1e-8));
  ctx.Metric("qps", static_cast<double>(emissions.qps));
  ctx.Metric("qp.mean_iterations",
             emissions.qps > 0 ? static_cast<double>(emissions.qp_iterations) / static_cast<double>(emissions.qps) : 0);
  ctx.Metric("qp.not_converged", static_cast<double>(emissions.not_converged));
  ctx.Metric("absent_labels", static_cast<double>(emissions.absent_labels));
  ctx.Metric("seconds", SecondsSince(start));
  return model;
}

ParamTable<AnchorHmmNodeOptions> AnchorHmmParams() {
  using O = AnchorHmmNodeOptions;
  auto emissions = [](auto member) { return At(&O::emissions, member); };
  ParamTable<O> table;
  table
      .Double("lambda", emissions(&AnchorEmissionOptions::lambda),
              "Eq. 26 interpolation with the labeled p(h|w), for words seen labeled (0: moments only)")
      .Min(0)
      .Max(1)
      .Double("emission_floor", emissions(&AnchorEmissionOptions::emission_floor),
              "weight of the uniform distribution mixed into each emission row")
      .Min(0)
      .Max(1)
      .Include(At(&O::emissions, &AnchorEmissionOptions::qp), SimplexQpParams())
      .Double("smoothing.initial", At(&O::smoothing, &HmmSmoothing::initial), "added to every initial-state count")
      .Min(0)
      .Double("smoothing.transition", At(&O::smoothing, &HmmSmoothing::transition), "added to every transition count")
      .Min(0);
  return table;
}

KindSpec AnchorHmmKind() {
  return KindSpec{
      "moments.anchor_hmm",
      "1",
      "The anchor HMM (Marinho et al. 2016, Algorithm 1): context-label moments of the anchors (Eq. 12), one "
      "simplex QP per word (Eq. 14, interpolated with the labeled posterior by lambda as Eq. 26), emissions "
      "by Bayes' rule (Eq. 15-16), transitions from the labeled data with add-one smoothing.",
      std::string(HmmModel::kType),
      AnchorModelPorts(),
      AnchorHmmParams(),
      RunAnchorHmm};
}

}  // namespace

void RegisterMomentsNodes(Registry& registry) {
  registry.AddArtifactType<Moments>();
  registry.AddArtifactType<AnchorSet>();
  registry.AddKind(
      CollectKind().Needing({.parallel = true, .memory_mb = 2048, .data_parallel = true}).FittingInputs({"data"}));
  registry.AddKind(AnchorsKind().As(NodeRole::kTrainer).Fitting({"labeled", "dictionary"}));
  registry.AddKind(
      AnchorHmmKind().Needing({.parallel = true, .memory_mb = 2048}).As(NodeRole::kTrainer).Fitting({"labeled"}));
  registry.AddKind(
      AnchorFhmmKind().Needing({.parallel = true, .memory_mb = 2048}).As(NodeRole::kTrainer).Fitting({"labeled"}));
}

}  // namespace seqflow

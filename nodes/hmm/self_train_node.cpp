// hmm.self_train: the self-training baseline of Marinho et al. (2016, §6.1): tag the unlabeled
// text with the start model (Viterbi on the chain library), then estimate the HMM by counting on
// the labeled and the self-labeled sentences together. One round, as in the paper. With
// `emissions: loglinear` (the FHMM, whose start is fhmm.supervised) the emissions are refitted as
// the feature HMM's: Eq. 25 by L-BFGS on the feature means of all the tagged tokens, labeled and
// self-labeled, instead of counted and normalised; transitions are counted either way.
#include "nodes/hmm/self_train_node.h"

#include <string>
#include <utility>

#include "engine/api/node.h"
#include "nodes/chain/chain_decode.h"
#include "nodes/fhmm/fhmm_em.h"
#include "nodes/fhmm/loglinear_params.h"
#include "nodes/fhmm/word_features.h"
#include "nodes/hmm/hmm_model.h"
#include "nodes/hmm/supervised.h"

namespace seqflow {

namespace {

enum class EmissionFamily { kCounts, kLogLinear };

struct SelfTrainOptions {
  HmmSmoothing smoothing;
  EmissionFamily emissions = EmissionFamily::kCounts;
  LogLinearOptions loglinear;  // emissions: loglinear only
};

ArtifactPtr RunSelfTrain(NodeContext& ctx, const SelfTrainOptions& options) {
  auto start = ctx.In<HmmModel>("start");
  auto labeled = ctx.In<Corpus>("labeled");
  if (labeled->label_names != start->label_names)
    throw StatusError(Status::Invalid("hmm.self_train: the labels of '" + labeled->source +
                                      "' differ from the start model's: train the start model on it"));
  const Vocab& vocab = *start->vocab;
  std::vector<std::vector<int32_t>> words = CorpusSymbols(vocab, *labeled), labels;
  for (const Sentence& s : labeled->sentences) labels.push_back(s.labels);
  int64_t self_labeled = 0;
  for (const auto& corpus : ctx.InList<Corpus>("unlabeled")) {
    ChainCorpus chains = ValueOrThrow(start->Chains(*corpus, ctx.threads()));
    ThrowIfError(ctx.cancellation().Check("hmm.self_train"));
    std::vector<std::vector<int32_t>> tagged = ChainViterbiCorpus(chains.tables, chains.columns, ctx.threads());
    for (size_t s = 0; s < tagged.size(); ++s) self_labeled += static_cast<int64_t>(tagged[s].size());
    std::vector<std::vector<int32_t>> symbols = CorpusSymbols(vocab, *corpus);
    words.insert(words.end(), std::make_move_iterator(symbols.begin()), std::make_move_iterator(symbols.end()));
    labels.insert(labels.end(), std::make_move_iterator(tagged.begin()), std::make_move_iterator(tagged.end()));
  }
  auto model = std::make_shared<HmmModel>(*start);
  if (options.emissions == EmissionFamily::kLogLinear) {
    const WordFeatures features = BuildWordFeatures(vocab);
    FhmmEmOptions fit;
    fit.loglinear = options.loglinear;
    fit.smoothing = options.smoothing;
    fit.threads = ctx.threads();
    model->params =
        ValueOrThrow(EstimateTaggedFhmm(words, labels, start->num_states(), features.phi, fit, ctx.cancellation()));
    ThrowIfError(ValidateHmmModel(*model, 1e-8));
    ctx.Metric("features", static_cast<double>(features.names.size()));
  } else {
    model->params = EstimateSupervisedHmm(words, labels, start->num_states(), start->num_symbols(), options.smoothing);
    ThrowIfError(ValidateHmmModel(*model));
  }
  ctx.Metric("self_labeled_tokens", static_cast<double>(self_labeled));
  return model;
}

ParamTable<SelfTrainOptions> SelfTrainParams() {
  using O = SelfTrainOptions;
  ParamTable<O> table;
  table
      .Double("smoothing.initial", At(&O::smoothing, &HmmSmoothing::initial),
              "epsilon added to every initial-state count")
      .Min(0)
      .Double("smoothing.transition", At(&O::smoothing, &HmmSmoothing::transition),
              "epsilon added to every transition count")
      .Min(0)
      .Double("smoothing.emission", At(&O::smoothing, &HmmSmoothing::emission),
              "epsilon added to every emission count (emissions: counts)")
      .Min(0)
      .Enum("emissions", &O::emissions,
            {{"counts", EmissionFamily::kCounts}, {"loglinear", EmissionFamily::kLogLinear}},
            "counts: the HMM's count-and-normalise; loglinear: the FHMM's log-linear fit (Eq. 25)")
      .Include(&O::loglinear, LogLinearParams());
  return table;
}

}  // namespace

KindSpec SelfTrainKind() {
  return KindSpec{"hmm.self_train",
                  "1",
                  "Self-training (Marinho et al. 2016, section 6.1): Viterbi-tags the unlabeled corpora with the start "
                  "HMM, then re-estimates the HMM from the labeled and self-labeled sentences together (one round, "
                  "add-epsilon smoothing as hmm.supervised); emissions: loglinear refits the feature HMM's "
                  "log-linear emissions (Eq. 25) on all the tagged tokens instead.",
                  std::string(HmmModel::kType),
                  {PortSpec{"start", std::string(HmmModel::kType), false, false, "the supervised model that tags"},
                   PortSpec{"labeled", std::string(Corpus::kType), false, false, "the labeled sentences"},
                   PortSpec{"unlabeled", std::string(Corpus::kType), true, false, "the corpora to self-label"}},
                  SelfTrainParams(),
                  RunSelfTrain};
}

}  // namespace seqflow

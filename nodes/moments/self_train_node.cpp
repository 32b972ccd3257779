// hmm.self_train: the self-training baseline of Marinho et al. (2016, §6.1): tag the unlabeled
// text with the start model (Viterbi on the chain library), then estimate the HMM by counting on
// the labeled and the self-labeled sentences together. One round, as in the paper.
#include "nodes/moments/self_train_node.h"

#include <string>
#include <utility>

#include "engine/api/node.h"
#include "nodes/chain/chain_decode.h"
#include "nodes/hmm/hmm_model.h"
#include "nodes/hmm/supervised.h"

namespace seqflow {

namespace {

ArtifactPtr RunSelfTrain(NodeContext& ctx, const HmmSmoothing& smoothing) {
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
  model->params = EstimateSupervisedHmm(words, labels, start->num_states(), start->num_symbols(), smoothing);
  ThrowIfError(ValidateHmmModel(*model));
  ctx.Metric("self_labeled_tokens", static_cast<double>(self_labeled));
  return model;
}

ParamTable<HmmSmoothing> SelfTrainParams() {
  using O = HmmSmoothing;
  ParamTable<O> table;
  table.Double("smoothing.initial", &O::initial, "epsilon added to every initial-state count")
      .Min(0)
      .Double("smoothing.transition", &O::transition, "epsilon added to every transition count")
      .Min(0)
      .Double("smoothing.emission", &O::emission, "epsilon added to every emission count")
      .Min(0);
  return table;
}

}  // namespace

KindSpec SelfTrainKind() {
  return KindSpec{"hmm.self_train",
                  "1",
                  "Self-training (Marinho et al. 2016, section 6.1): Viterbi-tags the unlabeled corpora with the start "
                  "HMM, then re-estimates the HMM from the labeled and self-labeled sentences together (one round, "
                  "add-epsilon smoothing as hmm.supervised).",
                  std::string(HmmModel::kType),
                  {PortSpec{"start", std::string(HmmModel::kType), false, false, "the supervised model that tags"},
                   PortSpec{"labeled", std::string(Corpus::kType), false, false, "the labeled sentences"},
                   PortSpec{"unlabeled", std::string(Corpus::kType), true, false, "the corpora to self-label"}},
                  SelfTrainParams(),
                  RunSelfTrain};
}

}  // namespace seqflow

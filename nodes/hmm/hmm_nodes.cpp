// Adapters between the engine and the HMM estimation kernels.
#include "nodes/hmm/hmm_nodes.h"

#include <string>
#include <utility>

#include "engine/api/node.h"
#include "nodes/hmm/classifier_node.h"
#include "nodes/hmm/em_nodes.h"
#include "nodes/hmm/self_train_node.h"

namespace seqflow {

Result<std::shared_ptr<const HmmModel>> TrainSupervisedHmm(const Corpus& labeled, std::shared_ptr<const Vocab> vocab,
                                                           const HmmSmoothing& smoothing) {
  const std::string source = labeled.source.empty() ? std::string("the corpus") : "'" + labeled.source + "'";
  if (!labeled.labeled())
    return Status::Invalid("hmm.supervised needs a labeled corpus on port 'data', but " + source +
                           " has no labels (read it with read.conll, not read.text)");
  std::vector<std::vector<int32_t>> labels;
  labels.reserve(labeled.sentences.size());
  for (size_t s = 0; s < labeled.sentences.size(); ++s) {
    const Sentence& sentence = labeled.sentences[s];
    if (sentence.labels.size() != sentence.size())
      return Status::Invalid("hmm.supervised: sentence " + std::to_string(s + 1) + " of " + source + " has " +
                             std::to_string(sentence.size()) + " tokens but " + std::to_string(sentence.labels.size()) +
                             " labels");
    labels.push_back(sentence.labels);
  }
  auto model = std::make_shared<HmmModel>();
  model->label_names = labeled.label_names;
  model->encoding = labeled.encoding;
  model->params = EstimateSupervisedHmm(CorpusSymbols(*vocab, labeled), labels,
                                        static_cast<int>(labeled.label_names.size()), vocab->size(), smoothing);
  // Without emission smoothing, a symbol no label emits in the labeled text has probability 0 in
  // every state: every sentence holding it is impossible, and EM or a decoder fails on it later.
  if (smoothing.emission == 0) {
    const Eigen::MatrixXd& emission = model->params.emission;
    std::vector<int32_t> unseen;
    for (Eigen::Index j = 0; j < emission.cols(); ++j)
      if (emission.col(j).maxCoeff() == 0) unseen.push_back(static_cast<int32_t>(j));
    if (!unseen.empty())
      return Status::Invalid("hmm.supervised: smoothing.emission is 0 and " + std::to_string(unseen.size()) +
                             " symbols of the vocabulary (the first: '" + vocab->Name(unseen.front()) +
                             "') never occur in " + source +
                             ", so every sentence holding one has probability 0; set smoothing.emission > 0");
  }
  model->vocab = std::move(vocab);
  return std::shared_ptr<const HmmModel>(std::move(model));
}

namespace {

ArtifactPtr RunSupervised(NodeContext& ctx, const HmmSmoothing& smoothing) {
  auto corpus = ctx.In<Corpus>("data");
  auto model = ValueOrThrow(TrainSupervisedHmm(*corpus, ctx.In<Vocab>("vocab"), smoothing));
  ctx.Metric("states", model->num_states());
  ctx.Metric("symbols", model->num_symbols());
  ctx.Metric("tokens", static_cast<double>(corpus->num_tokens()));
  return model;
}

ParamTable<HmmSmoothing> SupervisedParams() {
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

KindSpec SupervisedKind() {
  return KindSpec{"hmm.supervised",
                  "1",
                  "Estimates an HMM with one state per label from labeled sentences: counts plus add-epsilon "
                  "smoothing in every cell, each row normalised (Haffari & Sarkar 2008, section 5).",
                  std::string(HmmModel::kType),
                  {PortSpec{"data", std::string(Corpus::kType), false, false, "labeled training sentences"},
                   PortSpec{"vocab", std::string(Vocab::kType), false, false, "maps words to emission symbols"}},
                  SupervisedParams(),
                  RunSupervised};
}

}  // namespace

void RegisterHmmNodes(Registry& registry) {
  registry.AddArtifactType<HmmModel>({std::string(ChainModel::kInterface)});
  registry.AddKind(SupervisedKind().As(NodeRole::kTrainer).Fitting({"data"}));
  RegisterEmNodes(registry);
  RegisterClassifierNode(registry);
  registry.AddKind(SelfTrainKind()
                       .Needing({.parallel = true, .memory_mb = 2048})
                       .As(NodeRole::kTrainer)
                       .Fitting({"labeled"})
                       .FittingInputs({"unlabeled"}));
}

}  // namespace seqflow

#include "nodes/fhmm/fhmm_from_means.h"

#include <utility>

namespace seqflow {

std::vector<std::vector<int32_t>> LabelsOf(const Corpus& corpus) {
  std::vector<std::vector<int32_t>> labels;
  for (const Sentence& s : corpus.sentences) labels.push_back(s.labels);
  return labels;
}

Eigen::MatrixXd WordLabelCounts(const Corpus& labeled, const Vocab& vocab) {
  if (!labeled.labeled())
    throw StatusError(
        Status::Invalid("port 'labeled' needs a labeled corpus, but '" + labeled.source + "' has no labels"));
  Eigen::MatrixXd counts = Eigen::MatrixXd::Zero(vocab.size(), static_cast<Eigen::Index>(labeled.label_names.size()));
  for (const Sentence& s : labeled.sentences)
    for (size_t t = 0; t < s.size(); ++t) counts(vocab.Id(s.words()[t]), s.labels[t]) += 1;
  return counts;
}

std::shared_ptr<HmmModel> FhmmFromMeans(NodeContext& ctx, const Corpus& labeled, std::shared_ptr<const Vocab> vocab,
                                        const WordFeatures& features, const FeatureMeans& means,
                                        const FhmmFitOptions& options) {
  const auto k = static_cast<int>(labeled.label_names.size());
  Eigen::MatrixXd emission =
      ValueOrThrow(FitLogLinearEmissions(features.phi, means.mu, options.loglinear, ctx.cancellation()));
  for (int h = 0; h < k; ++h)
    if (!means.present[h]) emission.row(h).setConstant(1.0 / static_cast<double>(vocab->size()));
  auto model = std::make_shared<HmmModel>();
  model->label_names = labeled.label_names;
  model->encoding = labeled.encoding;
  model->params =
      EstimateSupervisedHmm(CorpusSymbols(*vocab, labeled), LabelsOf(labeled), k, vocab->size(), options.smoothing);
  model->params.emission = std::move(emission);
  model->vocab = std::move(vocab);
  ThrowIfError(ValidateHmmModel(*model, 1e-8));
  ctx.Metric("features", static_cast<double>(features.names.size()));
  return model;
}

}  // namespace seqflow

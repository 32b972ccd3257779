// Adapters for the feature HMM (Marinho et al. 2016, §2.2 and §4, Algorithm 2).
#include "nodes/moments/fhmm_nodes.h"

#include <chrono>
#include <string>
#include <utility>

#include "engine/api/node.h"
#include "nodes/hmm/hmm_model.h"
#include "nodes/hmm/supervised.h"
#include "nodes/moments/anchor_set.h"
#include "nodes/moments/feature_moments.h"
#include "nodes/moments/loglinear_emissions.h"
#include "nodes/moments/loglinear_params.h"
#include "nodes/features/moments.h"
#include "nodes/features/projection.h"
#include "nodes/moments/word_features.h"

namespace seqflow {

namespace {

// Where moments.anchor_fhmm takes its mean parameters from.
enum class MeanSource {
  kFeatures,  // one QP per feature (Eq. 22-24)
  kWords,     // the anchor HMM's emissions (Eq. 14-16), μ_h = Σ_w O[h, w] φ(w): consistent by construction
};

struct FhmmNodeOptions {
  AnchorEmissionOptions emissions;  // lambda and the QPs (anchor_fhmm only)
  MeanSource means = MeanSource::kFeatures;
  FeaturePrior prior = FeaturePrior::kTemplate;  // γ̄ of Eq. 24 (feature_moments.h)
  InterpolatedFeatures interpolated = InterpolatedFeatures::kWords;
  LogLinearOptions loglinear;
  HmmSmoothing smoothing{1.0, 1.0, 0.0};  // add-one on transitions (section 3.5)
};

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

// The HMM with log-linear emissions fitted to `means` (uniform rows for absent labels) and
// transitions counted on `labeled`.
std::shared_ptr<HmmModel> FhmmFromMeans(NodeContext& ctx, const Corpus& labeled, std::shared_ptr<const Vocab> vocab,
                                        const WordFeatures& features, const FeatureMeans& means,
                                        const FhmmNodeOptions& options) {
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

// The estimates of p(h) beside the labeled tag distribution, as total variation distances.
void ReportPriors(NodeContext& ctx, const std::vector<std::string>& label_names, const Eigen::MatrixXd& word_label,
                  const FeatureMeans& means) {
  const Eigen::VectorXd labeled = word_label.colwise().sum().transpose() / word_label.sum();
  ctx.Metric("prior.identity_tv", 0.5 * (means.identity_prior - labeled).cwiseAbs().sum());
  ctx.Metric("prior.eq23_tv", 0.5 * (means.eq23_prior - labeled).cwiseAbs().sum());
  ctx.Metric("prior.template_spread", means.template_prior_spread);
  for (size_t h = 0; h < label_names.size(); ++h) {
    const auto i = static_cast<Eigen::Index>(h);
    ctx.Metric("prior.labeled." + label_names[h], labeled[i]);
    ctx.Metric("prior.identity." + label_names[h], means.identity_prior[i]);
    ctx.Metric("prior.eq23." + label_names[h], means.eq23_prior[i]);
  }
}

ArtifactPtr RunAnchorFhmm(NodeContext& ctx, const FhmmNodeOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const auto [moments, anchors, labeled] = ReadAnchorModelInputs(ctx);
  const Vocab& vocab = *moments->vocab;
  const WordFeatures features = BuildWordFeatures(vocab);
  LabeledMoments labeled_moments;
  labeled_moments.word_label = WordLabelCounts(*labeled, vocab);
  labeled_moments.context_label =
      moments->MapContexts(LabeledContextCounts(CorpusSymbols(vocab, *labeled), LabelsOf(*labeled), vocab.size(),
                                                static_cast<int32_t>(labeled->label_names.size())));
  AnchorEmissionOptions emission_options = options.emissions;
  emission_options.threads = ctx.threads();
  auto projection = ctx.InOptional<Projection>("projection");
  const Eigen::MatrixXd* context_projection = projection ? &projection->context_projection : nullptr;
  FeatureMeans means;
  if (options.means == MeanSource::kFeatures) {
    means = ValueOrThrow(EstimateAnchorFeatureMeans(
        moments->counts, anchors->symbols, labeled_moments, labeled->label_names, features.phi,
        TemplatesByName(features.names), options.prior, options.interpolated, emission_options, ctx.cancellation(), context_projection));
    ReportPriors(ctx, labeled->label_names, labeled_moments.word_label, means);
  } else {
    emission_options.emission_floor = 0;
    AnchorEmissions words =
        ValueOrThrow(EstimateAnchorEmissions(moments->counts, anchors->symbols, labeled_moments, labeled->label_names,
                                             emission_options, ctx.cancellation(), context_projection));
    means.mu = words.emission * features.phi;
    for (Eigen::Index h = 0; h < words.posterior.rows(); ++h) means.present.push_back(words.posterior.row(h).sum() > 0);
    means.qps = words.qps;
    means.not_converged = words.not_converged;
  }
  auto model = FhmmFromMeans(ctx, *labeled, moments->vocab, features, means, options);
  ctx.Metric("qps", static_cast<double>(means.qps));
  ctx.Metric("qp.not_converged", static_cast<double>(means.not_converged));
  ctx.Metric("seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return model;
}

ArtifactPtr RunSupervisedFhmm(NodeContext& ctx, const FhmmNodeOptions& options) {
  auto labeled = ctx.In<Corpus>("data");
  auto vocab = ctx.In<Vocab>("vocab");
  const WordFeatures features = BuildWordFeatures(*vocab);
  FeatureMeans means = LabeledFeatureMeans(WordLabelCounts(*labeled, *vocab), features.phi);
  return FhmmFromMeans(ctx, *labeled, vocab, features, means, options);
}

template <class O>
void AddLogLinearParams(ParamTable<O>& table) {
  table.Include(&O::loglinear, LogLinearParams())
      .Double("smoothing.initial", At(&O::smoothing, &HmmSmoothing::initial), "added to every initial-state count")
      .Min(0)
      .Double("smoothing.transition", At(&O::smoothing, &HmmSmoothing::transition), "added to every transition count")
      .Min(0);
}

ParamTable<FhmmNodeOptions> AnchorFhmmParams() {
  using O = FhmmNodeOptions;
  ParamTable<O> table;
  table
      .Double("lambda", At(&O::emissions, &AnchorEmissionOptions::lambda),
              "Eq. 26 interpolation with the labeled p(h|feature), for the features `interpolate` names")
      .Min(0)
      .Max(1)
      .Double("qp.tol", At(&O::emissions, &AnchorEmissionOptions::qp, &SimplexQpOptions::tol),
              "KKT residual at which a QP stops")
      .Greater(0)
      .Int("qp.max_iter", At(&O::emissions, &AnchorEmissionOptions::qp, &SimplexQpOptions::max_iter),
           "iteration limit per QP")
      .Min(1)
      .Enum("means", &O::means, {{"features", MeanSource::kFeatures}, {"words", MeanSource::kWords}},
            "features: one QP per feature (Eq. 22-24); words: feature means of the anchor HMM's emissions")
      .Enum("prior", &O::prior, {{"template", FeaturePrior::kTemplate}, {"identity", FeaturePrior::kIdentity}},
            "means: features: p(h) of Eq. 24 per feature template by total probability over the template and its "
            "complement (each template's means a distribution), or one p(h) from the identity features")
      .Enum("interpolate", &O::interpolated,
            {{"words", InterpolatedFeatures::kWords}, {"features", InterpolatedFeatures::kFeatures}},
            "means: features: which features seen labeled λ pulls to their labeled p(h|feature): the words' identity "
            "features (the paper's section 6) or every feature (affixes and shapes too)");
  AddLogLinearParams(table);
  return table;
}

ParamTable<FhmmNodeOptions> SupervisedFhmmParams() {
  ParamTable<FhmmNodeOptions> table;
  AddLogLinearParams(table);
  return table;
}

}  // namespace

KindSpec AnchorFhmmKind() {
  return KindSpec{
      "moments.anchor_fhmm",
      "3",
      "The anchor feature HMM (Marinho et al. 2016, Algorithm 2): one simplex QP per word feature (Eq. 22 with "
      "Eq. 26), mean parameters (Eq. 24), log-linear emissions by L-BFGS (Eq. 25) over binary word features "
      "(identity, case, digits, shape, affixes, @/#/URL), transitions from the labeled data; an HmmModel.",
      std::string(HmmModel::kType),
      AnchorModelPorts(),
      AnchorFhmmParams(),
      RunAnchorFhmm};
}

KindSpec SupervisedFhmmKind() {
  return KindSpec{
      "fhmm.supervised",
      "1",
      "The supervised feature HMM: log-linear emissions (Eq. 2) fitted by L-BFGS to the labeled feature means "
      "of each label (Eq. 25 with the empirical mean parameters), transitions counted with add-one "
      "smoothing; an HmmModel over the Vocab's symbols.",
      std::string(HmmModel::kType),
      {PortSpec{"data", std::string(Corpus::kType), false, false, "labeled training sentences"},
       PortSpec{"vocab", std::string(Vocab::kType), false, false, "the symbols emitted"}},
      SupervisedFhmmParams(),
      RunSupervisedFhmm};
}

}  // namespace seqflow

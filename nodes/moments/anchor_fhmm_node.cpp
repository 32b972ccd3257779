#include "nodes/moments/anchor_fhmm_node.h"

#include <chrono>
#include <string>
#include <utility>

#include "engine/api/node.h"
#include "nodes/features/moments.h"
#include "nodes/features/projection.h"
#include "nodes/fhmm/fhmm_from_means.h"
#include "nodes/moments/anchor_model_inputs.h"
#include "nodes/moments/anchor_set.h"
#include "nodes/moments/feature_moments.h"

namespace seqflow {

namespace {

// Where moments.anchor_fhmm takes its mean parameters from.
enum class MeanSource {
  kFeatures,  // one QP per feature (Eq. 22-24)
  kWords,     // the anchor HMM's emissions (Eq. 14-16), μ_h = Σ_w O[h, w] φ(w): consistent by construction
};

struct AnchorFhmmOptions {
  AnchorEmissionOptions emissions;  // lambda and the QPs
  MeanSource means = MeanSource::kFeatures;
  FeaturePrior prior = FeaturePrior::kTemplate;  // γ̄ of Eq. 24 (feature_moments.h)
  InterpolatedFeatures interpolated = InterpolatedFeatures::kWords;
  FhmmFitOptions fit;
};

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

ArtifactPtr RunAnchorFhmm(NodeContext& ctx, const AnchorFhmmOptions& options) {
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
    means = ValueOrThrow(EstimateAnchorFeatureMeans(moments->counts, anchors->symbols, labeled_moments,
                                                    labeled->label_names, features.phi, TemplatesByName(features.names),
                                                    options.prior, options.interpolated, emission_options,
                                                    ctx.cancellation(), context_projection));
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
  auto model = FhmmFromMeans(ctx, *labeled, moments->vocab, features, means, options.fit);
  ctx.Metric("qps", static_cast<double>(means.qps));
  ctx.Metric("qp.not_converged", static_cast<double>(means.not_converged));
  ctx.Metric("seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return model;
}

ParamTable<AnchorFhmmOptions> AnchorFhmmParams() {
  using O = AnchorFhmmOptions;
  ParamTable<O> table;
  table
      .Double("lambda", At(&O::emissions, &AnchorEmissionOptions::lambda),
              "Eq. 26 interpolation with the labeled p(h|feature), for the features `interpolate` names")
      .Min(0)
      .Max(1)
      .Include(At(&O::emissions, &AnchorEmissionOptions::qp), SimplexQpParams())
      .Enum("means", &O::means, {{"features", MeanSource::kFeatures}, {"words", MeanSource::kWords}},
            "features: one QP per feature (Eq. 22-24); words: feature means of the anchor HMM's emissions")
      .Enum("prior", &O::prior, {{"template", FeaturePrior::kTemplate}, {"identity", FeaturePrior::kIdentity}},
            "means: features: p(h) of Eq. 24 per feature template by total probability over the template and its "
            "complement (each template's means a distribution), or one p(h) from the identity features")
      .Enum("interpolate", &O::interpolated,
            {{"words", InterpolatedFeatures::kWords}, {"features", InterpolatedFeatures::kFeatures}},
            "means: features: which features seen labeled λ pulls to their labeled p(h|feature): the words' identity "
            "features (the paper's section 6) or every feature (affixes and shapes too)");
  AddFhmmFitParams(table, &O::fit);
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

}  // namespace seqflow

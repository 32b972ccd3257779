// Mean parameters of the feature HMM from anchors and moments (Marinho et al. 2016, §4.1,
// Algorithm 2 lines 1-10), for binary word features Φ (V x W, word_features.h):
//   Q̂[:, j] = Σ_w φ_j(w) M[:, w] / Σ_w φ_j(w) n_w                                  (Eq. 20)
//   γ_j = argmin_{γ ∈ simplex} (1 - λ_j) ||Q̂[:, j] - R̂ γ||² + λ_j ||γ - γ'_j||²     (Eq. 22, 26)
//   μ[h, j] = Γ[h, j] E[φ_j] / γ̄_h                                                   (Eq. 24)
// with R̂ as in anchor_emissions.h (optionally projected), γ'_j the labeled posterior of feature j,
// E[φ_j] = Σ_w φ_j(w) p̂_w (p̂ over labeled and unlabeled tokens). λ_j = λ for
//   interpolate = words: the identity features of words seen labeled, as the paper's §6 ("we used
//     supervised estimates only for words that occur in the labeled corpus"); 0 for every other
//     feature (affixes, shapes), whose γ_j come from the moments alone;
//   interpolate = features: every feature seen labeled (an earlier reading: with little labeled
//     text nearly every affix and shape is seen labeled, so at λ = 1 the moments reach only the
//     identity features of unlabeled words and the estimate stays at the supervised FHMM's
//     accuracy however much text there is; docs/validity.md).
//
// The prior γ̄_h of Eq. 24. The features come in templates of mutually exclusive features (all
// w=..., all suf2=..., or one binary feature such as cap); with T̄ a template's complement (the
// words with none of its features, a pseudo-feature fitted by one more QP), the law of total
// probability holds for every template: p(h) = Σ_{j ∈ T ∪ T̄} Γ[h, j] E[φ_j]. Independent QPs
// break it — each template implies its own p(h) — and dividing all templates by one γ̄ leaves
// their blocks of μ_h summing to anything but 1, outside the marginal polytope: on Malagasy the
// shape block of μ summed to 0.05 (X) ... 1.54 (NOUN), and the log-linear fit (Eq. 25) chased
// the impossible means. So:
//   prior = template: γ̄ in Eq. 24 is the feature's own template prior p_T(h) (above): each
//     template's block of μ_h is a distribution (Eq. 24 as written when the estimates agree);
//   prior = identity: one γ̄_h = Σ_{identity j} Γ[h, j] E[φ_j] for all features (the earlier
//     departure, kept as an ablation).
// Eq. 23's QP on q̄ is solved too and reported (eq23_prior), not used: it is a third estimate of
// p(h), consistent with none of the templates.
// Labels that neither anchors nor labeled tokens describe are not estimated (present = false).
#pragma once

#include <Eigen/Dense>
#include <Eigen/Sparse>
#include <string>
#include <vector>

#include "nodes/fhmm/feature_means.h"
#include "nodes/moments/anchor_emissions.h"

namespace seqflow {

enum class FeaturePrior { kTemplate, kIdentity };
enum class InterpolatedFeatures { kWords, kFeatures };

// The word features' templates: template_of[j] in [0, num_templates) for each of the W features,
// identity_template the one of the word-identity features.
struct FeatureTemplates {
  std::vector<int32_t> template_of;
  int32_t num_templates = 0;
  int32_t identity_template = 0;
};

// Templates by name: the text before '=' ("suf2=ed" -> "suf2"), or the whole name ("cap"); the
// identity template is "w".
FeatureTemplates TemplatesByName(const std::vector<std::string>& names);

// Errors as EstimateAnchorEmissions; Invalid when a word has two features of one template or the
// sizes disagree.
Result<FeatureMeans> EstimateAnchorFeatureMeans(
    const MomentCounts& moments, const std::vector<std::vector<int32_t>>& anchors, const LabeledMoments& labeled,
    const std::vector<std::string>& label_names, const Eigen::SparseMatrix<double>& phi,
    const FeatureTemplates& templates, FeaturePrior prior, InterpolatedFeatures interpolated,
    const AnchorEmissionOptions& options,
    const CancelToken& cancel, const Eigen::MatrixXd* context_projection = nullptr);

}  // namespace seqflow

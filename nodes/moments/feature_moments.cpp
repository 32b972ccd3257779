#include "nodes/moments/feature_moments.h"

#include <algorithm>
#include <map>

#include "nodes/optim/simplex_qp_batch.h"

namespace seqflow {

namespace {

constexpr size_t kShardFeatures = 256;

// Φ extended by each template's complement T̄ as a pseudo-feature: columns nf .. nf + nt - 1 are 1
// for the words with no feature of template t. Invalid when a word has two features of one
// template, or a feature weight other than 1.
Result<Eigen::SparseMatrix<double>> WithTemplateComplements(const Eigen::SparseMatrix<double>& phi,
                                                            const FeatureTemplates& templates) {
  const Eigen::Index v = phi.rows(), nf = phi.cols(), nt = templates.num_templates;
  Eigen::MatrixXd covered = Eigen::MatrixXd::Zero(v, nt);
  std::vector<Eigen::Triplet<double>> entries;
  for (Eigen::Index j = 0; j < nf; ++j)
    for (Eigen::SparseMatrix<double>::InnerIterator it(phi, j); it; ++it) {
      covered(it.row(), templates.template_of[j]) += it.value();
      entries.emplace_back(static_cast<int>(it.row()), static_cast<int>(j), it.value());
    }
  for (Eigen::Index w = 0; w < v; ++w)
    for (Eigen::Index t = 0; t < nt; ++t) {
      if (covered(w, t) != 0 && covered(w, t) != 1)
        return Status::Invalid("feature means: symbol " + std::to_string(w) +
                               " has more than one feature of one template (binary, exclusive features expected)");
      if (covered(w, t) == 0) entries.emplace_back(static_cast<int>(w), static_cast<int>(nf + t), 1.0);
    }
  Eigen::SparseMatrix<double> phi_ext(v, nf + nt);
  phi_ext.setFromTriplets(entries.begin(), entries.end());
  return phi_ext;
}

}  // namespace

FeatureTemplates TemplatesByName(const std::vector<std::string>& names) {
  FeatureTemplates out;
  std::map<std::string, int32_t> ids{{"w", 0}};
  for (const std::string& name : names) {
    auto [it, inserted] = ids.try_emplace(name.substr(0, name.find('=')), static_cast<int32_t>(ids.size()));
    out.template_of.push_back(it->second);
  }
  out.num_templates = static_cast<int32_t>(ids.size());
  out.identity_template = 0;
  return out;
}

namespace {

// Per extended feature j (the features, then one complement per template), over the words.
struct FeatureStatistics {
  Eigen::MatrixXd fit;     // [K' x W'] Σ_w φ_j(w) Σ_c M[c, w] fit[c, :]: Eq. 20's numerator
  Eigen::VectorXd tokens;  // Σ_w φ_j(w) n_w
  Eigen::MatrixXd labeled;  // [W' x K] labeled tokens per label
  Eigen::VectorXd mean;     // E[φ_j] over labeled and unlabeled tokens
};

FeatureStatistics CollectFeatureStatistics(const MomentCounts& moments, const LabeledMoments& labeled,
                                           const Eigen::SparseMatrix<double>& phi_ext, const Eigen::MatrixXd& fit) {
  // Σ_c M[c, w] fit[c, :] per word, then summed over each feature (as anchor_emissions.cpp).
  Eigen::MatrixXd word_fit = Eigen::MatrixXd::Zero(fit.cols(), moments.num_symbols);
  for (Eigen::Index w = 0; w < moments.num_symbols; ++w)
    for (Eigen::SparseMatrix<double>::InnerIterator it(moments.cooccurrence, w); it; ++it)
      word_fit.col(w) += it.value() * fit.row(it.row()).transpose();
  FeatureStatistics stats;
  stats.fit = word_fit * phi_ext;
  stats.tokens = phi_ext.transpose() * moments.word_counts;
  stats.labeled = phi_ext.transpose() * labeled.word_label;
  const Eigen::VectorXd labeled_totals = labeled.word_label.rowwise().sum();
  const Eigen::VectorXd word_mass = moments.word_counts + labeled_totals;
  stats.mean = phi_ext.transpose() * (word_mass / word_mass.sum());
  return stats;
}

// Each template's p(h) [K' x templates], by total probability over the template and its complement.
Eigen::MatrixXd TemplatePriors(const Eigen::MatrixXd& gamma_all, const Eigen::VectorXd& feature_mean,
                               const FeatureTemplates& templates, Eigen::Index nf) {
  Eigen::MatrixXd template_prior = Eigen::MatrixXd::Zero(gamma_all.rows(), templates.num_templates);
  for (Eigen::Index j = 0; j < gamma_all.cols(); ++j)
    template_prior.col(j < nf ? templates.template_of[j] : j - nf) += gamma_all.col(j) * feature_mean[j];
  return template_prior;
}

}  // namespace

Result<FeatureMeans> EstimateAnchorFeatureMeans(
    const MomentCounts& moments, const std::vector<std::vector<int32_t>>& anchors, const LabeledMoments& labeled,
    const std::vector<std::string>& label_names, const Eigen::SparseMatrix<double>& phi,
    const FeatureTemplates& templates, FeaturePrior prior, InterpolatedFeatures interpolated,
    const AnchorEmissionOptions& options,
    const CancelToken& cancel, const Eigen::MatrixXd* context_projection) {
  const Eigen::Index k = static_cast<Eigen::Index>(anchors.size()), v = moments.num_symbols, nf = phi.cols();
  const Eigen::Index nt = templates.num_templates;
  if (phi.rows() != v || static_cast<Eigen::Index>(templates.template_of.size()) != nf ||
      labeled.word_label.rows() != v || labeled.word_label.cols() != k ||
      static_cast<Eigen::Index>(label_names.size()) != k || templates.identity_template < 0 ||
      templates.identity_template >= nt)
    return Status::Invalid("feature means: features, templates, labeled counts and labels disagree in size");
  for (int32_t t : templates.template_of)
    if (t < 0 || t >= nt) return Status::Invalid("feature means: template id out of range");
  if (context_projection && context_projection->rows() != moments.num_contexts())
    return Status::Invalid("feature means: the context projection does not match the contexts");
  SEQFLOW_ASSIGN_OR_RETURN(const Eigen::SparseMatrix<double> phi_ext, WithTemplateComplements(phi, templates));
  const Eigen::Index ne = nf + nt;

  SEQFLOW_ASSIGN_OR_RETURN(Eigen::MatrixXd context_label, ContextLabelMoments(moments, anchors, labeled, label_names));
  SEQFLOW_ASSIGN_OR_RETURN(const AnchorFit anchor_fit,
                           FitAnchors(context_label, options, context_projection, "feature means"));
  const std::vector<Eigen::Index>& present = anchor_fit.present;
  FeatureMeans out;
  for (Eigen::Index h = 0; h < k; ++h)
    out.present.push_back(std::find(present.begin(), present.end(), h) != present.end());
  const Eigen::Index kp = static_cast<Eigen::Index>(present.size());
  const FeatureStatistics stats = CollectFeatureStatistics(moments, labeled, phi_ext, anchor_fit.fit);
  Eigen::MatrixXd gamma_all = Eigen::MatrixXd::Zero(kp, ne);
  const Eigen::VectorXd uniform = Eigen::VectorXd::Constant(kp, 1.0 / static_cast<double>(kp));
  // Feature j's β: (1 - λ_j) Q̂[:, j] fitted + λ_j γ'_j, λ_j = λ for the features `interpolated`
  // pulls to their labeled posterior γ'_j, else 0; the start is γ'_j when seen labeled, else
  // uniform, and a feature absent from the text keeps it.
  auto prepare = [&](size_t ji, Eigen::VectorXd& beta, Eigen::VectorXd& gamma) {
    const auto j = static_cast<Eigen::Index>(ji);
    const double labeled_count = stats.labeled.row(j).sum();
    const bool seen_labeled = labeled_count > 0;
    gamma = seen_labeled ? Eigen::VectorXd(stats.labeled(j, present).transpose() / labeled_count) : uniform;
    if (stats.tokens[j] == 0) {
      gamma_all.col(j) = gamma;
      return QpChoice::kNone;
    }
    const bool interpolate = seen_labeled && (interpolated == InterpolatedFeatures::kFeatures ||
                                              (j < nf && templates.template_of[j] == templates.identity_template));
    const double lw = interpolate ? options.lambda : 0;
    beta = (1 - lw) * stats.fit.col(j) / stats.tokens[j];
    if (interpolate) beta += lw * gamma;
    return interpolate ? QpChoice::kInterpolated : QpChoice::kPlain;
  };
  auto store = [&](size_t j, const Eigen::VectorXd& gamma) { gamma_all.col(static_cast<Eigen::Index>(j)) = gamma; };
  SEQFLOW_ASSIGN_OR_RETURN(const SimplexQpBatchStats qps,
                           SolveSimplexQpBatch(static_cast<size_t>(ne), kShardFeatures, options.threads, cancel,
                                               anchor_fit.unsupervised, anchor_fit.interpolated, kp, prepare, store,
                                               "feature means"));
  out.qps = qps.qps;
  out.not_converged = qps.not_converged;
  const Eigen::MatrixXd template_prior = TemplatePriors(gamma_all, stats.mean, templates, nf);
  const Eigen::VectorXd identity_prior = template_prior.col(templates.identity_template);
  for (Eigen::Index t = 0; t < nt; ++t)
    out.template_prior_spread =
        std::max(out.template_prior_spread, 0.5 * (template_prior.col(t) - identity_prior).cwiseAbs().sum());
  // Eq. 23: p(h) from q̄ by one more QP, for the report.
  Eigen::VectorXd context_mean = moments.ContextMean();
  if (context_projection) context_mean = context_projection->transpose() * context_mean;
  Eigen::VectorXd eq23 = Eigen::VectorXd::Constant(kp, 1.0 / static_cast<double>(kp));
  SEQFLOW_RETURN_IF_ERROR(anchor_fit.unsupervised.Solve(anchor_fit.r.transpose() * context_mean, eq23).status());
  out.identity_prior = Eigen::VectorXd::Zero(k);
  out.eq23_prior = Eigen::VectorXd::Zero(k);
  out.identity_prior(present) = identity_prior;
  out.eq23_prior(present) = eq23;
  // Eq. 24.
  out.mu = Eigen::MatrixXd::Zero(k, nf);
  for (Eigen::Index i = 0; i < kp; ++i) {
    if (!(identity_prior[i] > 0))
      return Status::Numerical("label '" + label_names[present[i]] + "' gets no probability from the feature QPs");
    for (Eigen::Index j = 0; j < nf; ++j) {
      const double p =
          prior == FeaturePrior::kTemplate ? template_prior(i, templates.template_of[j]) : identity_prior[i];
      out.mu(present[i], j) = p > 0 ? gamma_all(i, j) * stats.mean[j] / p : 0;
    }
  }
  return out;
}

}  // namespace seqflow

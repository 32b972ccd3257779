#include "nodes/moments/feature_moments.h"

#include <atomic>
#include <mutex>

#include "nodes/common/parallel.h"

namespace seqflow {

namespace {

constexpr size_t kShardFeatures = 256;

}  // namespace

Result<FeatureMeans> EstimateAnchorFeatureMeans(const MomentCounts& moments,
                                                const std::vector<std::vector<int32_t>>& anchors,
                                                const LabeledMoments& labeled,
                                                const std::vector<std::string>& label_names,
                                                const Eigen::SparseMatrix<double>& phi,
                                                const std::vector<bool>& identity, const AnchorEmissionOptions& options,
                                                const CancelToken& cancel, const Eigen::MatrixXd* context_projection) {
  const Eigen::Index k = static_cast<Eigen::Index>(anchors.size()), v = moments.num_symbols, nf = phi.cols();
  if (phi.rows() != v || static_cast<Eigen::Index>(identity.size()) != nf || labeled.word_label.rows() != v ||
      labeled.word_label.cols() != k || static_cast<Eigen::Index>(label_names.size()) != k)
    return Status::Invalid("feature means: features, labeled counts and labels disagree in size");
  if (context_projection && context_projection->rows() != moments.num_contexts())
    return Status::Invalid("feature means: the context projection does not match the contexts");
  SEQFLOW_ASSIGN_OR_RETURN(Eigen::MatrixXd context_label, ContextLabelMoments(moments, anchors, labeled, label_names));
  FeatureMeans out;
  std::vector<Eigen::Index> present;
  for (Eigen::Index h = 0; h < k; ++h) {
    out.present.push_back(context_label.col(h).sum() > 0);
    if (out.present.back()) present.push_back(h);
  }
  if (present.empty()) return Status::Invalid("feature means: no label has anchors or labeled tokens");
  const Eigen::Index kp = static_cast<Eigen::Index>(present.size());
  const Eigen::MatrixXd r_contexts = context_label(Eigen::all, present);
  const Eigen::MatrixXd r =
      context_projection ? Eigen::MatrixXd(context_projection->transpose() * r_contexts) : r_contexts;

  // Σ_c M[c, w] r[c, :] per word (Eq. 20's numerator through R̂ᵀ), then summed over each feature.
  Eigen::MatrixXd word_fit = Eigen::MatrixXd::Zero(kp, v);
  Eigen::VectorXd projected(context_projection ? r.rows() : 0);
  for (Eigen::Index w = 0; w < v; ++w) {
    if (context_projection) {
      projected.setZero();
      for (Eigen::SparseMatrix<double>::InnerIterator it(moments.cooccurrence, w); it; ++it)
        projected += it.value() * context_projection->row(it.row()).transpose();
      word_fit.col(w) = r.transpose() * projected;
    } else {
      for (Eigen::SparseMatrix<double>::InnerIterator it(moments.cooccurrence, w); it; ++it)
        word_fit.col(w) += it.value() * r.row(it.row()).transpose();
    }
  }
  const Eigen::MatrixXd feature_fit = word_fit * phi;                            // [K' x W]
  const Eigen::VectorXd feature_tokens = phi.transpose() * moments.word_counts;  // Σ_w φ_j(w) n_w
  const Eigen::MatrixXd feature_label = phi.transpose() * labeled.word_label;    // [W x K]
  const Eigen::VectorXd labeled_totals = labeled.word_label.rowwise().sum();
  const Eigen::VectorXd word_mass = moments.word_counts + labeled_totals;
  const Eigen::VectorXd feature_mean = phi.transpose() * (word_mass / word_mass.sum());  // E[φ_j]

  const Eigen::MatrixXd gram = r.transpose() * r;
  SEQFLOW_ASSIGN_OR_RETURN(SimplexQp unsupervised, SimplexQp::Create(gram, options.qp));
  SEQFLOW_ASSIGN_OR_RETURN(
      SimplexQp interpolated,
      SimplexQp::Create((1 - options.lambda) * gram + options.lambda * Eigen::MatrixXd::Identity(kp, kp), options.qp));
  Eigen::MatrixXd gamma_all = Eigen::MatrixXd::Zero(kp, nf);
  std::vector<int64_t> shard_qps(NumShards(static_cast<size_t>(nf), kShardFeatures)), shard_missed(shard_qps.size());
  std::mutex error_mutex;
  Status error;
  std::atomic<bool> failed{false};
  ParallelShards(static_cast<size_t>(nf), kShardFeatures, options.threads, [&](size_t shard, size_t begin, size_t end) {
    if (failed || cancel.requested()) return;
    SimplexQp qp0 = unsupervised, qp_lambda = interpolated;
    Eigen::VectorXd beta(kp), prior(kp), gamma(kp);
    for (size_t ji = begin; ji < end; ++ji) {
      const auto j = static_cast<Eigen::Index>(ji);
      const double labeled_count = feature_label.row(j).sum();
      const bool seen_labeled = labeled_count > 0;
      if (seen_labeled) prior = feature_label(j, present).transpose() / labeled_count;
      if (feature_tokens[j] == 0) {
        gamma_all.col(j) = seen_labeled ? prior : Eigen::VectorXd::Constant(kp, 1.0 / static_cast<double>(kp));
        continue;
      }
      const double lw = seen_labeled ? options.lambda : 0;
      beta = (1 - lw) * feature_fit.col(j) / feature_tokens[j];
      if (seen_labeled) beta += lw * prior;
      gamma = seen_labeled ? prior : Eigen::VectorXd::Constant(kp, 1.0 / static_cast<double>(kp));
      Result<SimplexQpStats> stats = (seen_labeled ? qp_lambda : qp0).Solve(beta, gamma);
      if (!stats.ok()) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!failed) error = stats.status();
        failed = true;
        return;
      }
      ++shard_qps[shard];
      shard_missed[shard] += stats->converged ? 0 : 1;
      gamma_all.col(j) = gamma;
    }
  });
  if (failed) return error;
  if (cancel.requested()) return Status::Cancelled("feature means cancelled");
  for (size_t s = 0; s < shard_qps.size(); ++s) {
    out.qps += shard_qps[s];
    out.not_converged += shard_missed[s];
  }
  // p(h) from the identity features (see the header), then Eq. 24.
  Eigen::VectorXd prior_mass = Eigen::VectorXd::Zero(kp);
  for (Eigen::Index j = 0; j < nf; ++j)
    if (identity[j]) prior_mass += gamma_all.col(j) * feature_mean[j];
  out.mu = Eigen::MatrixXd::Zero(k, nf);
  for (Eigen::Index i = 0; i < kp; ++i) {
    if (!(prior_mass[i] > 0))
      return Status::Numerical("label '" + label_names[present[i]] + "' gets no probability from the feature QPs");
    out.mu.row(present[i]) = gamma_all.row(i).cwiseProduct(feature_mean.transpose()) / prior_mass[i];
  }
  return out;
}

FeatureMeans LabeledFeatureMeans(const Eigen::MatrixXd& word_label, const Eigen::SparseMatrix<double>& phi) {
  FeatureMeans out;
  out.mu = (phi.transpose() * word_label).transpose();  // [K x W]
  for (Eigen::Index h = 0; h < word_label.cols(); ++h) {
    const double n = word_label.col(h).sum();
    out.present.push_back(n > 0);
    if (n > 0) out.mu.row(h) /= n;
  }
  return out;
}

}  // namespace seqflow

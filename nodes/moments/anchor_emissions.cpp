#include "nodes/moments/anchor_emissions.h"

#include <atomic>
#include <mutex>

#include "nodes/common/parallel.h"

namespace seqflow {

namespace {

constexpr size_t kShardSymbols = 256;

// R̂ of Eq. 12: the mean context vector of each label's anchor tokens.
Result<Eigen::MatrixXd> ContextLabelMoments(const MomentCounts& m, const std::vector<std::vector<int32_t>>& anchors,
                                            const std::vector<std::string>& label_names) {
  Eigen::MatrixXd r = Eigen::MatrixXd::Zero(m.num_contexts(), static_cast<Eigen::Index>(anchors.size()));
  for (size_t h = 0; h < anchors.size(); ++h) {
    double tokens = 0;
    for (int32_t w : anchors[h]) {
      for (Eigen::SparseMatrix<double>::InnerIterator it(m.cooccurrence, w); it; ++it)
        r(it.row(), static_cast<Eigen::Index>(h)) += it.value();
      tokens += m.word_counts[w];
    }
    if (tokens == 0)
      return Status::Invalid("label '" + label_names[h] + "': its anchor words never occur in the unlabeled text");
    r.col(static_cast<Eigen::Index>(h)) /= tokens;
  }
  return r;
}

}  // namespace

Result<AnchorEmissions> EstimateAnchorEmissions(const MomentCounts& moments,
                                                const std::vector<std::vector<int32_t>>& anchors,
                                                const Eigen::MatrixXd& labeled_counts,
                                                const std::vector<std::string>& label_names,
                                                const AnchorEmissionOptions& options, const CancelToken& cancel) {
  const Eigen::Index k = static_cast<Eigen::Index>(anchors.size()), v = moments.num_symbols;
  if (k < 1 || labeled_counts.rows() != v || labeled_counts.cols() != k ||
      static_cast<Eigen::Index>(label_names.size()) != k)
    return Status::Invalid("anchor emissions: anchors, labeled counts and labels disagree in size");
  for (const auto& a : anchors)
    for (int32_t w : a)
      if (w < 0 || w >= v) return Status::Invalid("anchor emissions: anchor symbol out of range");
  AnchorEmissions out;
  SEQFLOW_ASSIGN_OR_RETURN(out.context_label, ContextLabelMoments(moments, anchors, label_names));
  const Eigen::MatrixXd& r = out.context_label;
  const Eigen::MatrixXd gram = r.transpose() * r;
  const Eigen::MatrixXd identity = Eigen::MatrixXd::Identity(k, k);
  const double lambda = options.lambda;
  SEQFLOW_ASSIGN_OR_RETURN(SimplexQp unsupervised, SimplexQp::Create(gram, options.qp));
  SEQFLOW_ASSIGN_OR_RETURN(SimplexQp interpolated,
                           SimplexQp::Create((1 - lambda) * gram + lambda * identity, options.qp));
  const Eigen::VectorXd labeled_totals = labeled_counts.rowwise().sum();

  out.posterior.resize(k, v);
  std::vector<int64_t> shard_qps(NumShards(static_cast<size_t>(v), kShardSymbols)),
      shard_iterations(shard_qps.size()), shard_missed(shard_qps.size());
  std::mutex error_mutex;
  Status error;
  std::atomic<bool> failed{false};
  ParallelShards(static_cast<size_t>(v), kShardSymbols, options.threads, [&](size_t shard, size_t begin, size_t end) {
    if (failed || cancel.requested()) return;
    SimplexQp qp0 = unsupervised, qp_lambda = interpolated;  // per-shard scratch space
    Eigen::VectorXd b(k), beta(k), prior(k), gamma(k);
    for (size_t wi = begin; wi < end; ++wi) {
      const auto w = static_cast<Eigen::Index>(wi);
      const bool labeled = labeled_totals[w] > 0;
      if (labeled) prior = labeled_counts.row(w).transpose() / labeled_totals[w];
      if (moments.word_counts[w] == 0) {
        out.posterior.col(w) = labeled ? prior : Eigen::VectorXd::Constant(k, 1.0 / static_cast<double>(k));
        continue;
      }
      b.setZero();
      for (Eigen::SparseMatrix<double>::InnerIterator it(moments.cooccurrence, w); it; ++it)
        b += it.value() * r.row(it.row()).transpose();
      b /= moments.word_counts[w];
      const double lw = labeled ? lambda : 0;
      beta = (1 - lw) * b;
      if (labeled) beta += lw * prior;
      gamma = labeled ? prior : Eigen::VectorXd::Constant(k, 1.0 / static_cast<double>(k));
      Result<SimplexQpStats> stats = (labeled ? qp_lambda : qp0).Solve(beta, gamma);
      if (!stats.ok()) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!failed) error = stats.status();
        failed = true;
        return;
      }
      ++shard_qps[shard];
      shard_iterations[shard] += stats->iterations;
      shard_missed[shard] += stats->converged ? 0 : 1;
      out.posterior.col(w) = gamma;
    }
  });
  if (failed) return error;
  if (cancel.requested()) return Status::Cancelled("anchor emissions cancelled");
  for (size_t s = 0; s < shard_qps.size(); ++s) {
    out.qps += shard_qps[s];
    out.qp_iterations += shard_iterations[s];
    out.not_converged += shard_missed[s];
  }

  // Bayes' rule (Eq. 15-16) with p̂_w over labeled and unlabeled tokens.
  const Eigen::VectorXd word_mass = moments.word_counts + labeled_totals;
  out.emission = out.posterior * word_mass.asDiagonal();
  for (Eigen::Index h = 0; h < k; ++h) {
    const double total = out.emission.row(h).sum();
    if (!(total > 0) || !std::isfinite(total))
      return Status::Numerical("label '" + label_names[h] + "' gets no emission mass from the anchor QPs");
    out.emission.row(h) = (1 - options.emission_floor) * out.emission.row(h) / total +
                          Eigen::RowVectorXd::Constant(v, options.emission_floor / static_cast<double>(v));
  }
  return out;
}

}  // namespace seqflow

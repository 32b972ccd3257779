#include "nodes/moments/anchor_emissions.h"

#include <algorithm>

#include "nodes/optim/simplex_qp_batch.h"

namespace seqflow {

namespace {

constexpr size_t kShardSymbols = 256;

}  // namespace

Result<Eigen::MatrixXd> ContextLabelMoments(const MomentCounts& m, const std::vector<std::vector<int32_t>>& anchors,
                                            const LabeledMoments& labeled,
                                            const std::vector<std::string>& label_names) {
  Eigen::MatrixXd r = Eigen::MatrixXd::Zero(m.num_contexts(), static_cast<Eigen::Index>(anchors.size()));
  for (size_t h = 0; h < anchors.size(); ++h) {
    const auto col = static_cast<Eigen::Index>(h);
    if (anchors[h].empty()) {
      const bool has_contexts = labeled.context_label.cols() == r.cols() && labeled.context_label.rows() == r.rows() &&
                                labeled.context_label.col(col).sum() > 0;
      if (!has_contexts && labeled.word_label.col(col).sum() > 0)
        return Status::Invalid("label '" + label_names[h] + "' has no anchors and no labeled contexts");
      // A label with no labeled token at all stays a zero column: EstimateAnchorEmissions leaves it out.
      // Divided by the label's labeled tokens: the mean context vector, whatever the features per token.
      if (has_contexts) r.col(col) = labeled.context_label.col(col) / labeled.word_label.col(col).sum();
      continue;
    }
    double tokens = 0;
    for (int32_t w : anchors[h]) {
      for (Eigen::SparseMatrix<double>::InnerIterator it(m.cooccurrence, w); it; ++it) r(it.row(), col) += it.value();
      tokens += m.word_counts[w];
    }
    if (tokens == 0)
      return Status::Invalid("label '" + label_names[h] + "': its anchor words never occur in the unlabeled text");
    r.col(col) /= tokens;
  }
  return r;
}

Result<AnchorFit> FitAnchors(const Eigen::MatrixXd& context_label, const AnchorEmissionOptions& options,
                             const Eigen::MatrixXd* context_projection, const std::string& what) {
  std::vector<Eigen::Index> present;
  for (Eigen::Index h = 0; h < context_label.cols(); ++h)
    if (context_label.col(h).sum() > 0) present.push_back(h);
  if (present.empty()) return Status::Invalid(what + ": no label has anchors or labeled tokens");
  const auto kp = static_cast<Eigen::Index>(present.size());
  const Eigen::MatrixXd r_contexts = context_label(Eigen::all, present);
  Eigen::MatrixXd r = context_projection ? Eigen::MatrixXd(context_projection->transpose() * r_contexts) : r_contexts;
  Eigen::MatrixXd fit = context_projection ? Eigen::MatrixXd(*context_projection * r) : r;
  const Eigen::MatrixXd gram = r.transpose() * r;
  SEQFLOW_ASSIGN_OR_RETURN(SimplexQp unsupervised, SimplexQp::Create(gram, options.qp));
  SEQFLOW_ASSIGN_OR_RETURN(
      SimplexQp interpolated,
      SimplexQp::Create((1 - options.lambda) * gram + options.lambda * Eigen::MatrixXd::Identity(kp, kp), options.qp));
  return AnchorFit{std::move(present), std::move(r), std::move(fit), std::move(unsupervised), std::move(interpolated)};
}

Result<AnchorEmissions> EstimateAnchorEmissions(const MomentCounts& moments,
                                                const std::vector<std::vector<int32_t>>& anchors,
                                                const LabeledMoments& labeled,
                                                const std::vector<std::string>& label_names,
                                                const AnchorEmissionOptions& options, const CancelToken& cancel,
                                                const Eigen::MatrixXd* context_projection) {
  const Eigen::MatrixXd& labeled_counts = labeled.word_label;
  if (context_projection && context_projection->rows() != moments.num_contexts())
    return Status::Invalid("anchor emissions: the context projection has " +
                           std::to_string(context_projection->rows()) + " rows for " +
                           std::to_string(moments.num_contexts()) + " contexts");
  const Eigen::Index k = static_cast<Eigen::Index>(anchors.size()), v = moments.num_symbols;
  if (k < 1 || labeled_counts.rows() != v || labeled_counts.cols() != k ||
      static_cast<Eigen::Index>(label_names.size()) != k)
    return Status::Invalid("anchor emissions: anchors, labeled counts and labels disagree in size");
  for (const auto& a : anchors)
    for (int32_t w : a)
      if (w < 0 || w >= v) return Status::Invalid("anchor emissions: anchor symbol out of range");
  AnchorEmissions out;
  SEQFLOW_ASSIGN_OR_RETURN(out.context_label, ContextLabelMoments(moments, anchors, labeled, label_names));
  // Labels that neither anchors nor labeled tokens describe cannot be estimated: the QPs run over
  // the others (K' labels) and the absent ones get a uniform emission row.
  SEQFLOW_ASSIGN_OR_RETURN(const AnchorFit anchor_fit,
                           FitAnchors(out.context_label, options, context_projection, "anchor emissions"));
  const std::vector<Eigen::Index>& present = anchor_fit.present;
  const Eigen::MatrixXd& fit = anchor_fit.fit;
  out.absent_labels = k - static_cast<Eigen::Index>(present.size());
  const Eigen::Index kp = static_cast<Eigen::Index>(present.size());
  const double lambda = options.lambda;
  const Eigen::VectorXd labeled_totals = labeled_counts.rowwise().sum();

  out.posterior = Eigen::MatrixXd::Zero(k, v);
  const Eigen::VectorXd uniform = Eigen::VectorXd::Constant(kp, 1.0 / static_cast<double>(kp));
  // Word w's β: (1 - λ_w) R̂ᵀq_w + λ_w γ'_w, λ_w = λ for a word seen labeled (its labeled posterior
  // γ'_w, also the start), else 0 (start uniform); a word absent from the text keeps that start.
  auto prepare = [&](size_t wi, Eigen::VectorXd& beta, Eigen::VectorXd& gamma) {
    const auto w = static_cast<Eigen::Index>(wi);
    const bool seen_labeled = labeled_totals[w] > 0;
    gamma = seen_labeled ? Eigen::VectorXd(labeled_counts(w, present).transpose() / labeled_totals[w]) : uniform;
    if (moments.word_counts[w] == 0) {
      out.posterior(present, w) = gamma;
      return QpChoice::kNone;
    }
    beta.setZero();
    for (Eigen::SparseMatrix<double>::InnerIterator it(moments.cooccurrence, w); it; ++it)
      beta += it.value() * fit.row(it.row()).transpose();
    beta /= moments.word_counts[w];
    const double lw = seen_labeled ? lambda : 0;
    beta = (1 - lw) * beta;
    if (seen_labeled) beta += lw * gamma;
    return seen_labeled ? QpChoice::kInterpolated : QpChoice::kPlain;
  };
  auto store = [&](size_t w, const Eigen::VectorXd& gamma) {
    out.posterior(present, static_cast<Eigen::Index>(w)) = gamma;
  };
  SEQFLOW_ASSIGN_OR_RETURN(const SimplexQpBatchStats qps,
                           SolveSimplexQpBatch(static_cast<size_t>(v), kShardSymbols, options.threads, cancel,
                                               anchor_fit.unsupervised, anchor_fit.interpolated, kp, prepare, store,
                                               "anchor emissions"));
  out.qps = qps.qps;
  out.qp_iterations = qps.iterations;
  out.not_converged = qps.not_converged;

  // Bayes' rule (Eq. 15-16) with p̂_w over labeled and unlabeled tokens.
  const Eigen::VectorXd word_mass = moments.word_counts + labeled_totals;
  out.emission = out.posterior * word_mass.asDiagonal();
  for (Eigen::Index h = 0; h < k; ++h) {
    if (std::find(present.begin(), present.end(), h) == present.end()) {
      out.emission.row(h).setConstant(1.0 / static_cast<double>(v));
      continue;
    }
    const double total = out.emission.row(h).sum();
    if (!(total > 0) || !std::isfinite(total))
      return Status::Numerical("label '" + label_names[h] + "' gets no emission mass from the anchor QPs");
    out.emission.row(h) = (1 - options.emission_floor) * out.emission.row(h) / total +
                          Eigen::RowVectorXd::Constant(v, options.emission_floor / static_cast<double>(v));
  }
  return out;
}

Eigen::MatrixXd LabeledContextCounts(const std::vector<std::vector<int32_t>>& symbols,
                                     const std::vector<std::vector<int32_t>>& labels, int32_t num_symbols,
                                     int32_t num_labels) {
  Eigen::MatrixXd counts = Eigen::MatrixXd::Zero(2 * (num_symbols + 1), num_labels);
  for (size_t s = 0; s < symbols.size(); ++s) {
    const std::vector<int32_t>& x = symbols[s];
    for (size_t t = 0; t < x.size(); ++t) {
      const int32_t prev = t == 0 ? num_symbols : x[t - 1];
      const int32_t next = t + 1 == x.size() ? num_symbols : x[t + 1];
      counts(PreviousContext(prev, num_symbols), labels[s][t]) += 1;
      counts(NextContext(next, num_symbols), labels[s][t]) += 1;
    }
  }
  return counts;
}

}  // namespace seqflow

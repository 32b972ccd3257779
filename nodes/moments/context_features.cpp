#include "nodes/moments/context_features.h"

namespace seqflow {

Result<ContextFeatures> BuildContextFeatures(const WordFeatures& features, const MomentCounts& onehot,
                                             int64_t min_count) {
  const int32_t v = onehot.num_symbols;
  const auto w = static_cast<int32_t>(features.names.size());
  if (features.phi.rows() != v || features.phi.cols() != w || onehot.num_contexts() != 2 * (v + 1))
    return Status::Invalid("context features: the word features do not describe the moments' symbols");
  if (min_count < 1) return Status::Invalid("context features: min_count must be at least 1");
  // Candidate features: prev block [0, W] (W = BOS), next block [W + 1, 2W + 1] (2W + 1 = EOS).
  const int32_t block = w + 1;
  std::vector<Eigen::Triplet<double>> entries;
  const Eigen::SparseMatrix<double, Eigen::RowMajor> phi = features.phi;
  for (int32_t s = 0; s <= v; ++s) {
    if (s == v) {
      entries.emplace_back(w, PreviousContext(v, v), 1.0);
      entries.emplace_back(block + w, NextContext(v, v), 1.0);
      continue;
    }
    for (Eigen::SparseMatrix<double, Eigen::RowMajor>::InnerIterator it(phi, s); it; ++it) {
      entries.emplace_back(static_cast<int32_t>(it.col()), PreviousContext(s, v), 1.0);
      entries.emplace_back(block + static_cast<int32_t>(it.col()), NextContext(s, v), 1.0);
    }
  }
  Eigen::SparseMatrix<double> all(2 * block, onehot.num_contexts());
  all.setFromTriplets(entries.begin(), entries.end());
  Eigen::VectorXd context_tokens = Eigen::VectorXd::Zero(onehot.num_contexts());
  for (int k = 0; k < onehot.cooccurrence.outerSize(); ++k)
    for (Eigen::SparseMatrix<double>::InnerIterator it(onehot.cooccurrence, k); it; ++it)
      context_tokens[it.row()] += it.value();
  const Eigen::VectorXd feature_tokens = all * context_tokens;
  ContextFeatures out;
  std::vector<Eigen::Triplet<double>> kept;
  const Eigen::SparseMatrix<double, Eigen::RowMajor> all_rows = all;
  for (int32_t f = 0; f < 2 * block; ++f) {
    if (feature_tokens[f] < static_cast<double>(min_count)) continue;
    const int32_t j = f < block ? f : f - block;
    out.names.push_back(std::string(f < block ? "prev:" : "next:") +
                        (j == w ? (f < block ? "BOS" : "EOS") : features.names[j]));
    const auto row = static_cast<int32_t>(out.names.size()) - 1;
    for (Eigen::SparseMatrix<double, Eigen::RowMajor>::InnerIterator it(all_rows, f); it; ++it)
      kept.emplace_back(row, static_cast<int32_t>(it.col()), 1.0);
  }
  if (out.names.empty())
    return Status::Invalid("context features: no feature context is seen " + std::to_string(min_count) +
                           " times; lower min_count");
  out.map.resize(static_cast<Eigen::Index>(out.names.size()), onehot.num_contexts());
  out.map.setFromTriplets(kept.begin(), kept.end());
  return out;
}

MomentCounts MapContexts(const MomentCounts& onehot, const Eigen::SparseMatrix<double>& map) {
  MomentCounts out;
  out.num_symbols = onehot.num_symbols;
  out.tokens = onehot.tokens;
  out.word_counts = onehot.word_counts;
  out.cooccurrence = map * onehot.cooccurrence;
  out.cooccurrence.makeCompressed();
  return out;
}

}  // namespace seqflow

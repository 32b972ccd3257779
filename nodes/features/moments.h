// Moments: the artifact moments.collect caches — the context-word co-occurrence counts of the
// unlabeled text (moment_counts.h) and the Vocab that maps words to their symbols, so later nodes
// (anchors, the anchor HMM) speak of the same symbols. Thread safety: immutable once shared.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/api/artifact.h"
#include "nodes/features/moment_counts.h"
#include "nodes/features/vocab.h"

namespace seqflow {

class Moments final : public Artifact {
 public:
  static constexpr std::string_view kType = "Moments";
  static constexpr uint32_t kVersion = 2;

  std::shared_ptr<const Vocab> vocab;  // V = vocab->size() = counts.num_symbols
  MomentCounts counts;
  // Feature contexts (context_features.h): their names and the map F from the one-hot contexts
  // (C = context_names.size()); both empty when the contexts are one-hot (C = 2 (V + 1)).
  std::vector<std::string> context_names;
  Eigen::SparseMatrix<double> context_map;

  // Counts over one-hot contexts [2 (V + 1) x K] (e.g. LabeledContextCounts) in this artifact's
  // contexts [C x K]: F times them, or themselves.
  Eigen::MatrixXd MapContexts(const Eigen::MatrixXd& onehot) const;

  std::string_view type() const override { return kType; }
  uint32_t version() const override { return kVersion; }
  // Layout: the Vocab payload (length-prefixed), V, N, n_w, C, the CSC arrays of the
  // co-occurrence matrix (outer starts, rows, values), then the context names and the CSC arrays
  // of F (empty for one-hot contexts). Load(Save(m)) is bit-exact.
  void Save(ByteWriter& w) const override;
  // Throws StatusError(Corruption) on truncated bytes or inconsistent shapes.
  static std::shared_ptr<const Moments> Load(ByteReader& r);
  // "moments of 24,132 tokens: 3,201 symbols x 6,404 contexts, 81,220 non-zeros".
  std::string Describe() const override;
};

}  // namespace seqflow

// Moments: the artifact moments.collect caches — the context-word co-occurrence counts of the
// unlabeled text (moment_counts.h) and the Vocab that maps words to their symbols, so later nodes
// (anchors, the anchor HMM) speak of the same symbols. Thread safety: immutable once shared.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "engine/api/artifact.h"
#include "nodes/features/vocab.h"
#include "nodes/moments/moment_counts.h"

namespace seqflow {

class Moments final : public Artifact {
 public:
  static constexpr std::string_view kType = "Moments";
  static constexpr uint32_t kVersion = 1;

  std::shared_ptr<const Vocab> vocab;  // V = vocab->size() = counts.num_symbols
  MomentCounts counts;

  std::string_view type() const override { return kType; }
  uint32_t version() const override { return kVersion; }
  // Layout: the Vocab payload (length-prefixed), V, N, n_w, then the CSC arrays of the
  // co-occurrence matrix (outer starts, rows, values). Load(Save(m)) is bit-exact.
  void Save(ByteWriter& w) const override;
  // Throws StatusError(Corruption) on truncated bytes or inconsistent shapes.
  static std::shared_ptr<const Moments> Load(ByteReader& r);
  // "moments of 24,132 tokens: 3,201 symbols x 6,404 contexts, 81,220 non-zeros".
  std::string Describe() const override;
};

}  // namespace seqflow

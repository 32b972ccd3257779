// AnchorSet: the artifact moments.anchors caches — for each label, its anchor words as symbols of
// the Moments' Vocab (and as text, for the record). Thread safety: immutable once shared.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/api/artifact.h"

namespace seqflow {

class AnchorSet final : public Artifact {
 public:
  static constexpr std::string_view kType = "Anchors";
  static constexpr uint32_t kVersion = 1;

  std::vector<std::string> label_names;         // [K]
  std::vector<std::vector<int32_t>> symbols;    // [K][anchors of h]
  std::vector<std::vector<std::string>> words;  // the same anchors as text

  std::string_view type() const override { return kType; }
  uint32_t version() const override { return kVersion; }
  void Save(ByteWriter& w) const override;
  // Throws StatusError(Corruption) on truncated bytes or inconsistent sizes.
  static std::shared_ptr<const AnchorSet> Load(ByteReader& r);
  // "anchors for 12 labels: 1,034 words (fewest: X 3)".
  std::string Describe() const override;
};

}  // namespace seqflow

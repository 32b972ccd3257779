// FeatureViews, the output of features.views: a fitted attribute dictionary and the view (0 or 1)
// of each of its attributes (view_assignment.h). Multi-view trainers extract their sentences with
// the dictionary and read view[a] to know which view's decision function an attribute scores in.
// Ownership: the dictionary is shared with the models trained on it.
// Thread safety: immutable once wrapped in shared_ptr<const>.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/api/artifact.h"
#include "nodes/features/feature_templates.h"

namespace seqflow {

class FeatureViews final : public Artifact {
 public:
  static constexpr std::string_view kType = "FeatureViews";
  static constexpr uint32_t kVersion = 1;

  std::shared_ptr<const FeatureDictionary> dictionary;
  std::vector<int32_t> view;  // [A] 0 or 1
  std::string split;          // ViewSplitName of how `view` was made

  int32_t AttributesInView(int32_t v) const;

  std::string_view type() const override { return kType; }
  uint32_t version() const override { return kVersion; }
  void Save(ByteWriter& w) const override;
  // Throws StatusError(Corruption) when the views do not match the dictionary.
  static std::shared_ptr<const FeatureViews> Load(ByteReader& r);
  // "token_surface views: 41230 + 355 attributes from 14 templates".
  std::string Describe() const override;
};

}  // namespace seqflow

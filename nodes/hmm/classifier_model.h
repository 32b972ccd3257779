// ClassifierModel: an HmmClassifier (hmm_classifier.h), class priors and one HMM per class, and
// the allocation λ it was selected at. Doubles serialize bit-exactly. Thread safety: immutable
// once wrapped in shared_ptr<const>.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "engine/api/artifact.h"
#include "nodes/hmm/hmm_classifier.h"

namespace seqflow {

class ClassifierModel final : public Artifact {
 public:
  static constexpr std::string_view kType = "ClassifierModel";
  static constexpr uint32_t kVersion = 1;

  HmmClassifier model;
  double lambda = 0;  // the allocation it was selected at (0: supervised)

  std::string_view type() const override { return kType; }
  uint32_t version() const override { return kVersion; }
  void Save(ByteWriter& w) const override;
  static std::shared_ptr<const ClassifierModel> Load(ByteReader& r);
  std::string Describe() const override;
};

}  // namespace seqflow

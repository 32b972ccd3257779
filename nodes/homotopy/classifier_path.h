// ClassifierPath: the probability-one path (probability_one.h): its points (Θ̃ and the figures the
// λ criteria read), P_F's start, the point at λ = U/(L+U) on P_F, counts. Doubles serialize
// bit-exactly. Thread safety: immutable once wrapped in shared_ptr<const>.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "engine/api/artifact.h"
#include "engine/api/record_spec.h"
#include "nodes/homotopy/probability_one.h"

namespace seqflow {

class ClassifierPathArtifact final : public Artifact {
 public:
  static constexpr std::string_view kType = "ClassifierPath";
  static constexpr uint32_t kVersion = 1;

  int num_classes = 0, num_states = 0, num_symbols = 0;
  int64_t num_labeled = 0, num_unlabeled = 0;
  ClassifierPath path;
  ClassifierPathPoint mle_point;  // λ = U / (L + U) on P_F

  ClassifierLayout Layout() const { return ClassifierLayout(num_classes, num_states, num_symbols); }
  // One row per point: s, lambda, dlambda_ds, entropy, log_likelihood, accuracy (empty without
  // truth), final_segment (1 on P_F).
  std::string Csv() const;
  static const AttachmentSpec& CsvTable();

  std::string_view type() const override { return kType; }
  uint32_t version() const override { return kVersion; }
  void Save(ByteWriter& w) const override;
  static std::shared_ptr<const ClassifierPathArtifact> Load(ByteReader& r);
  std::string Describe() const override;
};

}  // namespace seqflow

// Predictions: one label sequence per sentence of the decoded corpus, in the label space of the
// model that produced them, plus optional per-token marginals.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/api/artifact.h"
#include "nodes/io/corpus.h"

namespace seqflow {

class Predictions final : public Artifact {
 public:
  static constexpr std::string_view kType = "Predictions";
  static constexpr uint32_t kVersion = 1;

  std::vector<std::string> label_names;     // id -> label text
  TagEncoding encoding = TagEncoding::kNone;
  std::vector<std::vector<int32_t>> labels;  // [sentence][token]
  // [sentence] -> row-major [T x K] posteriors; empty when the decoder gives none.
  std::vector<std::vector<double>> marginals;

  std::string_view type() const override { return kType; }
  uint32_t version() const override { return kVersion; }
  void Save(ByteWriter& w) const override;
  static std::shared_ptr<const Predictions> Load(ByteReader& r);
  std::string Describe() const override;
};

}  // namespace seqflow

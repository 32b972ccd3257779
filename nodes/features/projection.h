// Projection: the artifact features.cca caches — the CCA projection of the one-hot contexts of a
// Moments artifact (context_cca.h) and its canonical correlations. Thread safety: immutable once
// shared.
#pragma once

#include <Eigen/Dense>
#include <memory>
#include <string>
#include <string_view>

#include "engine/api/artifact.h"

namespace seqflow {

class Projection final : public Artifact {
 public:
  static constexpr std::string_view kType = "Projection";
  static constexpr uint32_t kVersion = 1;

  Eigen::MatrixXd context_projection;  // [C x D]
  Eigen::VectorXd correlations;        // [D]

  std::string_view type() const override { return kType; }
  uint32_t version() const override { return kVersion; }
  // Layout: C, D, the projection (column-major doubles), the correlations. Bit-exact round trip.
  void Save(ByteWriter& w) const override;
  // Throws StatusError(Corruption) on truncated bytes or inconsistent sizes.
  static std::shared_ptr<const Projection> Load(ByteReader& r);
  // "CCA projection 21082 contexts -> 100 dims (correlations 1 .. 0.41)".
  std::string Describe() const override;
};

}  // namespace seqflow

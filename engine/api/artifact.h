// Artifact: the typed output of a node, with a versioned binary form.
//
// Each concrete artifact type T declares
//   static constexpr std::string_view kType;     // "Corpus", "HmmModel", ...
//   static constexpr uint32_t kVersion;          // bump when Save's layout changes
//   static std::shared_ptr<const T> Load(ByteReader&);   // throws StatusError on bad bytes
// and is registered with Registry::AddArtifactType<T>(). The cache frames the bytes of Save()
// with a magic, the type, the version and a checksum; artifacts only write their payload.
// Doubles are written bit-exactly, so Load(Save(x)) == x.
// Thread safety: artifacts are immutable once published (shared_ptr<const>).
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/bytes.h"
#include "engine/base/status.h"

namespace seqflow {

class Artifact {
 public:
  virtual ~Artifact() = default;
  virtual std::string_view type() const = 0;
  virtual uint32_t version() const = 0;
  // Writes the payload; the content hash of an artifact is the hash of these bytes.
  virtual void Save(ByteWriter& w) const = 0;
  // One line for logs, e.g. "8936 sentences, 211727 tokens, 22 labels".
  virtual std::string Describe() const { return std::string(type()); }
  // The pieces (engine/api/piece_store.h) this artifact names, whose bytes live outside it.
  virtual std::vector<std::string> PieceNames() const { return {}; }
};

using ArtifactPtr = std::shared_ptr<const Artifact>;

// Named numbers: what evaluators output and what every node may report. Keys are
// dotted ("f1", "f1.NP", "objective.final"); ordered so serialization is canonical.
class Metrics final : public Artifact {
 public:
  static constexpr std::string_view kType = "Metrics";
  static constexpr uint32_t kVersion = 1;

  std::map<std::string, double> values;

  std::string_view type() const override { return kType; }
  uint32_t version() const override { return kVersion; }
  void Save(ByteWriter& w) const override {
    w.U64(values.size());
    for (const auto& [k, v] : values) {
      w.Str(k);
      w.F64(v);
    }
  }
  static std::shared_ptr<const Metrics> Load(ByteReader& r) {
    auto m = std::make_shared<Metrics>();
    size_t n = r.Count(16);
    for (size_t i = 0; i < n; ++i) {
      std::string k = r.Str();
      m->values[k] = r.F64();
    }
    return m;
  }
  std::string Describe() const override { return std::to_string(values.size()) + " metrics"; }
};

}  // namespace seqflow

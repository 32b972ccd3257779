// Symbol sequences each with its class (−1: none), the data of the sequence classifiers (Ji,
// Watson & Carin): read by read.class_sequences and cut by split.classes.
// Thread safety: immutable once wrapped in shared_ptr<const>.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/api/artifact.h"
#include "engine/base/status.h"
#include "nodes/common/random.h"

namespace seqflow {

using SymbolSequences = std::vector<std::vector<int32_t>>;

class ClassSequences final : public Artifact {
 public:
  static constexpr std::string_view kType = "ClassSequences";
  static constexpr uint32_t kVersion = 1;

  std::string source;
  int num_classes = 0;
  int num_symbols = 0;
  SymbolSequences sequences;
  std::vector<int32_t> labels;

  std::string_view type() const override { return kType; }
  uint32_t version() const override { return kVersion; }
  void Save(ByteWriter& w) const override;
  static std::shared_ptr<const ClassSequences> Load(ByteReader& r);
  std::string Describe() const override;
};

// Parses `class<TAB>s_1 s_2 ...` lines (blank lines skipped); a bad line is Invalid naming
// `source` and the line. Classes and symbols are non-negative integers.
Result<std::shared_ptr<ClassSequences>> ParseClassSequences(std::string_view text, const std::string& source);

// Which sequences are labeled: `per_class` of each class in [0, num_classes), drawn without
// replacement from rng (a partial Fisher–Yates per class, classes in order). Invalid when a class
// has no more than per_class sequences.
Result<std::vector<bool>> ChooseLabeledPerClass(const std::vector<int32_t>& labels, int num_classes, int per_class,
                                                Rng& rng);

}  // namespace seqflow

// Corpus: sentences of tokens with named columns and optional gold labels.
//
// Column 0 is always the word. Labels are ids into `label_names` (kept as written in the file:
// "B-NP", "I-PER", "author"); `encoding` says how segments are read from them (IOB1, IOB2, or
// `runs`: a segment is a maximal run of one label, as in the citation data).
// Thread safety: immutable once wrapped in shared_ptr<const>.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/api/artifact.h"

namespace seqflow {

enum class TagEncoding { kNone, kIob1, kIob2, kRuns };
const char* TagEncodingName(TagEncoding e);  // "none", "iob1", "iob2", "runs"

struct Sentence {
  std::vector<std::vector<std::string>> cols;  // [column][token]; cols[0] = words
  std::vector<int32_t> labels;                 // [token]; empty when unlabeled
  size_t size() const { return cols.empty() ? 0 : cols[0].size(); }
  const std::vector<std::string>& words() const { return cols[0]; }
};

class Corpus final : public Artifact {
 public:
  static constexpr std::string_view kType = "Corpus";
  static constexpr uint32_t kVersion = 1;

  std::vector<std::string> columns;      // column names; columns[0] == "word"
  std::vector<std::string> label_names;  // id -> label text
  TagEncoding encoding = TagEncoding::kNone;
  std::string source;                    // file it was read from (for messages)
  std::vector<Sentence> sentences;

  bool labeled() const { return !label_names.empty(); }
  size_t num_tokens() const;
  // Index of a column by name, or -1.
  int ColumnIndex(std::string_view name) const;
  // Label id of `name`, or -1.
  int32_t LabelId(std::string_view name) const;

  std::string_view type() const override { return kType; }
  uint32_t version() const override { return kVersion; }
  void Save(ByteWriter& w) const override;
  static std::shared_ptr<const Corpus> Load(ByteReader& r);
  std::string Describe() const override;
};

}  // namespace seqflow

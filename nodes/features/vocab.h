// Vocab: word -> id, with unknown words mapped to a small set of unknown-word classes.
//
// ids [0, words.size()) are the known words, ids [words.size(), size()) the unknown classes
// (`unknown_classes`, e.g. "<UNK>" or shape classes like "<UNK-Xx>", "<UNK-num>").
// Lookup never fails: every string has an id.
// Thread safety: immutable once wrapped in shared_ptr<const>.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/api/artifact.h"
#include "nodes/features/attribute_index.h"

namespace seqflow {

enum class UnknownScheme { kSingle, kShape };
const char* UnknownSchemeName(UnknownScheme s);  // "single", "shape"

class Vocab final : public Artifact {
 public:
  static constexpr std::string_view kType = "Vocab";
  static constexpr uint32_t kVersion = 1;

  // REQUIRES: `words` unique.
  Vocab(std::vector<std::string> words, UnknownScheme scheme, bool lowercase);

  int32_t size() const { return static_cast<int32_t>(words_.size() + unknown_classes_.size()); }
  int32_t num_known() const { return static_cast<int32_t>(words_.size()); }
  int32_t Id(std::string_view word) const;
  // Text of an id: the word, or the unknown class name.
  const std::string& Name(int32_t id) const;
  const std::vector<std::string>& words() const { return words_; }
  const std::vector<std::string>& unknown_classes() const { return unknown_classes_; }
  UnknownScheme scheme() const { return scheme_; }
  bool lowercase() const { return lowercase_; }
  // Ids of a whole sentence.
  std::vector<int32_t> Ids(const std::vector<std::string>& words) const;

  std::string_view type() const override { return kType; }
  uint32_t version() const override { return kVersion; }
  void Save(ByteWriter& w) const override;
  static std::shared_ptr<const Vocab> Load(ByteReader& r);
  std::string Describe() const override;

 private:
  std::vector<std::string> words_;
  std::vector<std::string> unknown_classes_;
  UnknownScheme scheme_;
  bool lowercase_;
  AttributeIndex index_;  // word -> id: a lookup allocates nothing (Id runs once per token)
};

}  // namespace seqflow

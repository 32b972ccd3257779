// Compilation of feature-template texts (see feature_templates.h for the syntax) into atoms that
// read precomputed per-sentence "views": one view per distinct (column, function) pair, so a
// function such as shape() runs once per token, however many atoms and offsets use it.
// Internal to the features family. Thread safety: stateless; CompiledTemplates is a value.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"

namespace seqflow {

struct FeatureTemplate;

enum class TokenFunction : uint8_t { kIdentity, kLower, kShape, kPrefix, kSuffix };

// A column seen through a function; `length` is the prefix/suffix length in code points (1..4).
struct ColumnView {
  int32_t column = 0;  // index into the compiled column list
  TokenFunction function = TokenFunction::kIdentity;
  int32_t length = 0;
  bool operator==(const ColumnView&) const = default;
};

struct TemplateAtom {
  int32_t view = 0;  // index into CompiledTemplates::views
  int32_t offset = 0;
};

struct CompiledTemplates {
  std::vector<ColumnView> views;                 // distinct, in first-use order
  std::vector<std::vector<TemplateAtom>> atoms;  // [template][atom], in text order
  std::vector<bool> column_used;                 // [column]
};

// Offsets beyond this are rejected as malformed: no sensible template reaches that far.
inline constexpr int32_t kMaxTemplateOffset = 1000;

// Status::Invalid "template 'TEXT': PROBLEM" for an empty or malformed atom, an unknown
// function or column (with did-you-mean), a bad offset, or a duplicate template name.
Result<CompiledTemplates> CompileTemplates(const std::vector<FeatureTemplate>& templates,
                                           const std::vector<std::string>& columns);

// The value of `view` for one in-sentence token. Identity, prefix, suffix and shape return a view
// of `token` or of a static string; lower writes into `*scratch` and returns a view of it.
// Prefixes and suffixes count code points; a token shorter than the length is returned whole.
// REQUIRES: `token` is valid UTF-8; `scratch` outlives the returned view.
std::string_view ViewValue(const ColumnView& view, std::string_view token, std::string* scratch);

// The word type of Suzuki et al. (2007) Table 1 ("wtype"): the unknown-word shape classes of
// unknown_words.h without their suffix subclasses, e.g. "Xx", "CAPS", "digits", "x-hyphen", "x".
std::string_view WordType(std::string_view word);

}  // namespace seqflow

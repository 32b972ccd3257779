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

enum class TokenFunction : uint8_t { kIdentity, kLower, kShape, kPrefix, kSuffix, kNgrams };

// A column seen through a function; `length` is the prefix/suffix/n-gram length in code points (1..4).
// kNgrams is the one multi-valued function: a token has several values (LetterNgrams).
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
  std::vector<bool> multi_valued;                // [template]: its one atom is an ngramsN() view
};

inline bool IsMultiValued(const ColumnView& view) { return view.function == TokenFunction::kNgrams; }

// Offsets beyond this are rejected as malformed: no sensible template reaches that far.
inline constexpr int32_t kMaxTemplateOffset = 1000;

// Status::Invalid "template 'TEXT': PROBLEM" for an empty or malformed atom, an unknown
// function or column (with did-you-mean), a bad offset, a duplicate template name, or a
// multi-valued atom joined with other atoms by '|'.
Result<CompiledTemplates> CompileTemplates(const std::vector<FeatureTemplate>& templates,
                                           const std::vector<std::string>& columns);

// The value of a single-valued `view` for one in-sentence token. Identity, prefix, suffix and shape return a view
// of `token` or of a static string; lower writes into `*scratch` and returns a view of it.
// Prefixes and suffixes count code points; a token shorter than the length is returned whole.
// REQUIRES: `token` is valid UTF-8; `scratch` outlives the returned view; !IsMultiValued(view).
std::string_view ViewValue(const ColumnView& view, std::string_view token, std::string* scratch);

// Replaces `*out` with the distinct letter n-grams of `token` (n code points each, views of `token`),
// in the order of their first position; none when the token has fewer than n code points.
// REQUIRES: `token` is valid UTF-8, n >= 1.
void LetterNgrams(std::string_view token, int32_t n, std::vector<std::string_view>* out);

// The word type of Suzuki et al. (2007) Table 1 ("wtype"): the unknown-word shape classes of
// unknown_words.h without their suffix subclasses, e.g. "Xx", "CAPS", "digits", "x-hyphen", "x".
std::string_view WordType(std::string_view word);

}  // namespace seqflow

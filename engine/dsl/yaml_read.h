// Located access to parsed YAML documents (yaml_tree.h) for the DSL parser (internal to engine/dsl).
//
// The tree's marks are 0-based; everything here reports 1-based SourceLocs. The tree keeps
// duplicate map keys and ignores merge keys (`<<: *anchor`), so MapEntries detects the first
// and applies the second. Errors say what was expected and how to fix it.
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"
#include "engine/dsl/yaml_tree.h"

namespace seqflow::dsl {

// The 1-based place of `node` in `file`; line/col 0 when the node has no mark.
SourceLoc LocOf(const YamlNode& node, const std::string& file);

// "a map", "a list", "a scalar" or "nothing", for "expected X, got Y" messages.
const char* ShapeName(const YamlNode& node);

// Parses `text`; a syntax error is Invalid at file:line:col with the parser's reason.
Result<YamlNode> LoadYaml(const std::string& text, const std::string& file);

struct MapEntry {
  std::string key;
  SourceLoc key_loc;
  YamlNode value;
  // Where the value is; the key's place when the value is empty (an empty value's mark
  // can be at the next token, on another line).
  SourceLoc value_loc;
};

// The entries of a map in YAML order. A merge key (`<<: *a` or `<<: [*a, *b]`) is replaced by the
// merged map's entries not given explicitly (earlier maps win). `what` names the map in errors
// ("node 'tagger'"). Errors: non-scalar key, duplicate key, merge of a non-map.
// REQUIRES: map.IsMap().
Result<std::vector<MapEntry>> MapEntries(const YamlNode& map, const std::string& file, std::string_view what);

// The text of a scalar value, or Invalid at the value saying `what` must be a single value.
Result<std::string> ScalarText(const MapEntry& entry, std::string_view what);

}  // namespace seqflow::dsl

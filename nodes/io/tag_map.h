// A tag mapping: a two-column text file `FROM TO` (whitespace-separated; blank lines and comment
// lines, "# " at the start, ignored; so the tag '#' is mapped by "#<TAB>X"), e.g. Gimpel's Twitter tags or Garrette's
// Malagasy tags to the 12 universal tags of Petrov, Das & McDonald (2012). Readers apply it while parsing so an
// unmapped tag is reported at the data file's line. Pure; thread safety: immutable once built.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>

#include "engine/base/status.h"

namespace seqflow {

struct TagMap {
  std::string file;                                 // the mapping file (for messages)
  std::unordered_map<std::string, std::string> to;  // FROM -> TO
};

// Errors name file:line: a line without exactly two fields, a FROM given twice, an empty file.
Result<TagMap> ParseTagMap(std::string_view bytes, const std::string& file);

// The mapped tag, or Invalid at `loc`: "tag 'Q' is not in the tag map 'en-tweet.map'".
Result<std::string> MapTag(const TagMap& map, std::string_view tag, const SourceLoc& loc);

}  // namespace seqflow

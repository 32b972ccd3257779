// Parsing kernel for "word|tag" text: one sentence a line, whitespace-separated tokens, each the
// word and its tag joined by a delimiter (Garrette & Baldridge's Malagasy files). A token is split
// on the LAST delimiter, so a word may itself contain it ("a|b|N" is word "a|b", tag "N").
// Blank lines are skipped. Errors name file:line and the token, e.g.
//   "test.txt:4: token 7 'foo' has no '|' (expected WORD|TAG)".
// Label ids follow the sorted label names, as in ParseConll. Pure; thread safety: stateless.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "engine/base/status.h"
#include "nodes/io/corpus.h"
#include "nodes/io/tag_map.h"
#include "nodes/io/text_encoding.h"

namespace seqflow {

struct TaggedTextOptions {
  std::string delimiter = "|";  // non-empty
  TagEncoding encoding = TagEncoding::kRuns;
  FileEncoding file_encoding = FileEncoding::kUtf8;
  std::shared_ptr<const TagMap> tag_map;  // when set, tags are mapped as in ConllOptions::tag_map
};

// A labeled corpus with the single column "word".
Result<Corpus> ParseTaggedLines(std::string_view bytes, const std::string& file, const TaggedTextOptions& options);

}  // namespace seqflow

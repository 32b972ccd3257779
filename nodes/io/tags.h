// Tag syntax of the label encodings a Corpus can carry.
//
// iob1 / iob2: a tag is "O", "B-TYPE" or "I-TYPE" with a non-empty TYPE (which may itself
// contain '-'); the two differ only in when B- is used, which readers do not check, because
// real files break the rule (CoNLL-2003 eng.train has B- after O). `runs` and `none` accept any
// non-empty label. Thread safety: stateless.
#pragma once

#include <string>
#include <string_view>

#include "nodes/io/corpus.h"

namespace seqflow {

// "" when `tag` is acceptable under `encoding`, else why not, e.g.
// "invalid tag 'X-NP' for encoding iob2 (expected O, B-TYPE or I-TYPE)".
std::string TagProblem(std::string_view tag, TagEncoding encoding);

}  // namespace seqflow

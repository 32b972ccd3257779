#include "nodes/io/tags.h"

namespace seqflow {

std::string TagProblem(std::string_view tag, TagEncoding encoding) {
  if (tag.empty()) return "empty label";
  if (encoding != TagEncoding::kIob1 && encoding != TagEncoding::kIob2) return "";
  if (tag == "O") return "";
  if (tag.size() > 2 && (tag[0] == 'B' || tag[0] == 'I') && tag[1] == '-') return "";
  return "invalid tag '" + std::string(tag) + "' for encoding " + TagEncodingName(encoding) +
         " (expected O, B-TYPE or I-TYPE)";
}

}  // namespace seqflow

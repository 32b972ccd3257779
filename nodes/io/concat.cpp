#include "nodes/io/concat.h"

#include <algorithm>
#include <map>

namespace seqflow {

Result<Corpus> ConcatCorpora(const std::vector<const Corpus*>& parts) {
  if (parts.empty()) return Status::Invalid("concat: no corpora");
  const Corpus& first = *parts.front();
  Corpus out;
  out.columns = first.columns;
  out.encoding = first.encoding;
  std::map<std::string, int32_t> ids;
  for (const Corpus* part : parts) {
    auto differs = [&](const std::string& what) {
      return Status::Invalid("concat: " + part->source + " and " + first.source + " differ in " + what);
    };
    if (part->columns != first.columns) return differs("columns");
    if (part->encoding != first.encoding) return differs("tag encoding");
    if (part->labeled() != first.labeled()) return differs("being labeled");
    for (const std::string& name : part->label_names) ids.emplace(name, 0);
    out.source += (out.source.empty() ? "" : "+") + part->source;
  }
  for (auto& [name, id] : ids) {
    id = static_cast<int32_t>(out.label_names.size());
    out.label_names.push_back(name);
  }
  for (const Corpus* part : parts) {
    for (Sentence s : part->sentences) {
      for (int32_t& label : s.labels) label = ids.at(part->label_names[static_cast<size_t>(label)]);
      out.sentences.push_back(std::move(s));
    }
  }
  return out;
}

}  // namespace seqflow

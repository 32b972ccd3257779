#include "nodes/io/tag_map.h"

#include <sstream>
#include <vector>

namespace seqflow {

Result<TagMap> ParseTagMap(std::string_view bytes, const std::string& file) {
  TagMap map;
  map.file = file;
  std::istringstream in{std::string(bytes)};
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line == "#" || line.rfind("# ", 0) == 0) continue;
    std::istringstream fields(line);
    std::vector<std::string> parts;
    for (std::string f; fields >> f;) parts.push_back(f);
    if (parts.empty()) continue;
    SourceLoc loc{file, number};
    if (parts.size() != 2)
      return Status::Invalid("expected 2 columns (FROM TO) in the tag map, found " + std::to_string(parts.size()), loc);
    if (!map.to.emplace(parts[0], parts[1]).second)
      return Status::Invalid("tag '" + parts[0] + "' is mapped twice in the tag map", loc);
  }
  if (map.to.empty()) return Status::Invalid("empty tag map: no FROM TO lines", SourceLoc{file});
  return map;
}

Result<std::string> MapTag(const TagMap& map, std::string_view tag, const SourceLoc& loc) {
  auto it = map.to.find(std::string(tag));
  if (it == map.to.end())
    return Status::Invalid("tag '" + std::string(tag) + "' is not in the tag map '" + map.file + "'", loc);
  return it->second;
}

}  // namespace seqflow

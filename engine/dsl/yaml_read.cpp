#include "engine/dsl/yaml_read.h"

#include <algorithm>
#include <map>
#include <set>

namespace seqflow::dsl {
namespace {

struct PendingMerge {
  size_t position;  // entries before it in the explicit list
  YamlNode value;
  SourceLoc loc;
};

// Only a plain `<<` is a merge key; a quoted "<<" is an ordinary key (YAML 1.1 merge spec).
bool IsMergeKey(const YamlNode& key) { return key.Scalar() == "<<" && key.Tag() == "?"; }

Result<std::vector<MapEntry>> MergedEntries(const PendingMerge& merge, const std::string& file,
                                            std::string_view what) {
  std::vector<YamlNode> maps;
  if (merge.value.IsMap()) maps.push_back(merge.value);
  if (merge.value.IsSequence())
    for (const auto& item : merge.value) maps.push_back(item);
  bool all_maps = std::all_of(maps.begin(), maps.end(), [](const YamlNode& m) { return m.IsMap(); });
  if (maps.empty() || !all_maps)
    return Status::Invalid("merge key '<<' in " + std::string(what) +
                               " expects an alias of a map (<<: *name) or a list of them, got " +
                               ShapeName(merge.value),
                           merge.loc);
  std::vector<MapEntry> out;
  std::set<std::string> seen;
  for (const auto& m : maps) {
    SEQFLOW_ASSIGN_OR_RETURN(std::vector<MapEntry> entries, MapEntries(m, file, what));
    for (auto& e : entries)
      if (seen.insert(e.key).second) out.push_back(std::move(e));
  }
  return out;
}

}  // namespace

SourceLoc LocOf(const YamlNode& node, const std::string& file) {
  if (node.line() < 0 || node.column() < 0) return SourceLoc{file, 0, 0};
  return SourceLoc{file, node.line() + 1, node.column() + 1};
}

const char* ShapeName(const YamlNode& node) {
  if (node.IsMap()) return "a map";
  if (node.IsSequence()) return "a list";
  if (node.IsScalar()) return "a scalar";
  return "nothing";
}

Result<YamlNode> LoadYaml(const std::string& text, const std::string& file) {
  try {
    return YamlNode::Load(text);
  } catch (const YamlError& e) {
    const SourceLoc loc = e.line < 0 ? SourceLoc{file, 0, 0} : SourceLoc{file, e.line + 1, e.column + 1};
    if (e.too_deep) return Status::Invalid(e.what(), loc);
    return Status::Invalid(std::string("malformed YAML: ") + e.what() +
                               " (check indentation, brackets and quotes here)",
                           loc);
  }
}

Result<std::vector<MapEntry>> MapEntries(const YamlNode& map, const std::string& file, std::string_view what) {
  std::vector<MapEntry> explicit_entries;
  std::map<std::string, int> first_line;
  std::vector<PendingMerge> merges;
  for (size_t i = 0; i < map.size(); ++i) {
    const YamlNode key = map.Key(i);
    const YamlNode value = map.Value(i);
    SourceLoc key_loc = LocOf(key, file);
    if (!key.IsScalar())
      return Status::Invalid("keys of " + std::string(what) + " must be plain names, got " + ShapeName(key), key_loc);
    if (IsMergeKey(key)) {
      merges.push_back({explicit_entries.size(), value, key_loc});
      continue;
    }
    auto [pos, fresh] = first_line.emplace(key.Scalar(), key_loc.line);
    if (!fresh)
      return Status::Invalid("duplicate key '" + key.Scalar() + "' in " + std::string(what) + " (first at line " +
                                 std::to_string(pos->second) + "); YAML keeps only one, remove or rename one",
                             key_loc);
    SourceLoc value_loc = value.IsNull() ? key_loc : LocOf(value, file);
    explicit_entries.push_back({key.Scalar(), key_loc, value, value_loc});
  }
  if (merges.empty()) return explicit_entries;

  // Merged entries take the place of their `<<` key; explicit keys and earlier merges win.
  std::vector<MapEntry> out;
  std::set<std::string> taken;
  for (const auto& [key, line] : first_line) taken.insert(key);
  size_t next = 0;
  for (const auto& merge : merges) {
    while (next < merge.position) out.push_back(explicit_entries[next++]);
    SEQFLOW_ASSIGN_OR_RETURN(std::vector<MapEntry> merged, MergedEntries(merge, file, what));
    for (auto& e : merged)
      if (taken.insert(e.key).second) out.push_back(std::move(e));
  }
  while (next < explicit_entries.size()) out.push_back(explicit_entries[next++]);
  return out;
}

Result<std::string> ScalarText(const MapEntry& entry, std::string_view what) {
  if (entry.value.IsScalar()) return entry.value.Scalar();
  if (entry.value.IsNull())
    return Status::Invalid(std::string(what) + " is empty; give it a value (write \"\" for empty text)",
                           entry.value_loc);
  return Status::Invalid(std::string(what) + " must be a single value, got " + ShapeName(entry.value),
                         entry.value_loc);
}

}  // namespace seqflow::dsl

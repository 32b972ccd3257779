// Top-level keys of a pipeline file, includes and merging.
#include "engine/dsl/document.h"

#include <cctype>
#include <filesystem>
#include <unordered_map>

#include "engine/api/registry.h"
#include "engine/dsl/sections.h"
#include "engine/dsl/yaml_read.h"

namespace seqflow::dsl {
namespace {

const std::vector<std::string> kTopLevelKeys = {"name", "include", "vars", "nodes", "ablations", "repeat", "repeats"};

struct Include {
  std::string path;
  SourceLoc loc;
};

// Items of `from` replace the item of `into` with their name, in place, or come after them.
// Indexed by name: a generated pipeline has 10^5 nodes (a scan per item was quadratic).
template <class T>
void ReplaceOrAppend(std::vector<T>& into, std::vector<T> from) {
  std::unordered_map<std::string, size_t> position;
  for (size_t i = 0; i < into.size(); ++i) position.emplace(into[i].name, i);
  into.reserve(into.size() + from.size());
  for (auto& item : from) {
    auto [at, fresh] = position.emplace(item.name, into.size());
    if (fresh)
      into.push_back(std::move(item));
    else
      into[at->second] = std::move(item);
  }
}

void Merge(RawDoc& into, RawDoc from) {
  for (auto& [name, def] : from.vars) into.vars[name] = std::move(def);
  ReplaceOrAppend(into.nodes, std::move(from.nodes));
  ReplaceOrAppend(into.ablations, std::move(from.ablations));
  if (from.repeat) into.repeat = std::move(from.repeat);
}

Result<std::vector<Include>> ParseIncludes(const MapEntry& section, const std::string& file) {
  std::vector<YamlNode> items;
  if (section.value.IsScalar()) items.push_back(section.value);
  if (section.value.IsSequence())
    for (const auto& item : section.value) items.push_back(item);
  std::vector<Include> out;
  for (const auto& item : items) {
    if (!item.IsScalar()) break;
    out.push_back({item.Scalar(), LocOf(item, file)});
  }
  const bool well_formed = section.value.IsSequence() || section.value.IsScalar();
  if (!well_formed || out.size() != items.size())
    return Status::Invalid("'include' must be a file name or a list of file names, got " +
                               std::string(ShapeName(section.value)),
                           section.value_loc);
  return out;
}

// A key is quoted back only when it looks like a misspelt one: a file that is not a pipeline
// (an `include:` of /etc/shadow) must not have its first line printed into a shared log.
bool LooksLikeAKey(const std::string& key) {
  if (key.empty() || key.size() > 32) return false;
  for (char c : key)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') return false;
  return true;
}

Status UnknownTopLevelKey(const MapEntry& e) {
  constexpr const char* kExpected = " (expected name, include, vars, nodes, ablations, repeat, repeats)";
  if (!LooksLikeAKey(e.key))
    return Status::Invalid(std::string("this file is not a pipeline: a top-level key of it is no name") + kExpected,
                           e.key_loc);
  std::string near = NearestName(e.key, kTopLevelKeys);
  return Status::Invalid("unknown top-level key '" + e.key + "'" +
                             (near.empty() ? "" : " — did you mean '" + near + "'?") + kExpected,
                         e.key_loc);
}

Status ParseSection(const MapEntry& e, const std::string& file, RawDoc& doc, std::vector<Include>& includes) {
  if (e.key == "name") {
    SEQFLOW_ASSIGN_OR_RETURN(doc.name.text, ScalarText(e, "'name'"));
    doc.name.loc = e.value_loc;
  } else if (e.key == "include") {
    SEQFLOW_ASSIGN_OR_RETURN(includes, ParseIncludes(e, file));
  } else if (e.key == "vars") {
    SEQFLOW_ASSIGN_OR_RETURN(doc.vars, ParseVars(e, file));
  } else if (e.key == "nodes") {
    SEQFLOW_ASSIGN_OR_RETURN(doc.nodes, ParseNodes(e, file));
  } else if (e.key == "ablations") {
    SEQFLOW_ASSIGN_OR_RETURN(doc.ablations, ParseAblations(e, file));
  } else if (e.key == "repeat" || e.key == "repeats") {
    if (doc.repeat)
      return Status::Invalid("give either 'repeat: N' or 'repeats: {seed: [...]}', not both ('" + doc.repeat->key +
                                 "' at line " + std::to_string(doc.repeat->loc.line) + ")",
                             e.key_loc);
    SEQFLOW_ASSIGN_OR_RETURN(doc.repeat, ParseRepeat(e, file));
  } else {
    return UnknownTopLevelKey(e);
  }
  return Status::Ok();
}

Result<std::vector<MapEntry>> TopLevelEntries(const std::string& text, const std::string& file) {
  SEQFLOW_ASSIGN_OR_RETURN(YamlNode root, LoadYaml(text, file));
  if (root.IsNull())
    return Status::Invalid("pipeline file is empty; expected a map with at least nodes:", SourceLoc{file, 1, 1});
  if (!root.IsMap())
    return Status::Invalid("a pipeline file must be a map with keys name, include, vars, nodes, ablations; got " +
                               std::string(ShapeName(root)),
                           LocOf(root, file));
  return MapEntries(root, file, "the pipeline file");
}

Result<RawDoc> ReadInclude(const Include& inc, IncludeChain& chain, Env* env, VarScope& env_vars) {
  Result<std::string> expanded = env_vars.Expand(inc.path, inc.loc);
  if (!expanded.ok()) return expanded.status().Annotate("include paths see environment variables only");
  const std::string& path = *expanded;
  const auto& [parent_abs, parent_shown] = chain.files.back();
  std::string abs = ResolvePath(DirName(parent_abs), path);
  std::string shown = std::filesystem::path(JoinPath(DirName(parent_shown), path)).lexically_normal().string();
  std::string nesting;
  for (size_t i = 0; i < chain.files.size(); ++i) {
    nesting += chain.files[i].second + " -> ";
    if (chain.files[i].first != abs) continue;
    std::string cycle;
    for (size_t j = i; j < chain.files.size(); ++j) cycle += chain.files[j].second + " -> ";
    return Status::Invalid("include cycle: " + cycle + shown + "; remove one of these includes", inc.loc);
  }
  if (static_cast<int>(chain.files.size()) >= kMaxIncludeDepth)
    return Status::Invalid("includes nest more than " + std::to_string(kMaxIncludeDepth) + " files deep (" + nesting +
                               shown + "); include the shared parts from fewer levels",
                           inc.loc);
  if (++chain.files_read > kMaxIncludedFiles)
    return Status::Invalid("the pipeline reads more than " + std::to_string(kMaxIncludedFiles) +
                               " files through its includes; include each shared part once",
                           inc.loc);
  Result<std::string> text = ReadPipelineFile(env, abs, "included file '" + shown + "'");
  if (!text.ok()) return Status::Invalid(text.status().message(), inc.loc);
  chain.files.emplace_back(abs, shown);
  Result<RawDoc> doc = ReadDocument(*text, chain, env, env_vars);
  chain.files.pop_back();
  return doc;
}

}  // namespace

Result<std::map<std::string, VarDef>> ParseVars(const MapEntry& section, const std::string& file) {
  std::map<std::string, VarDef> vars;
  if (section.value.IsNull()) return vars;
  if (!section.value.IsMap())
    return Status::Invalid("'vars' must be a map of name -> value, got " + std::string(ShapeName(section.value)),
                           section.value_loc);
  SEQFLOW_ASSIGN_OR_RETURN(std::vector<MapEntry> entries, MapEntries(section.value, file, "'vars'"));
  for (const auto& e : entries) {
    SEQFLOW_ASSIGN_OR_RETURN(std::string text, ScalarText(e, "var '" + e.key + "'"));
    vars[e.key] = VarDef{std::move(text), e.value_loc};
  }
  return vars;
}

Result<std::string> ReadPipelineFile(Env* env, const std::string& path, const std::string& what) {
  if (Result<FileStat> st = env->Stat(path); st.ok()) {
    if (st->is_dir) return Status::Invalid("cannot read " + what + ": it is a folder");
    if (st->is_special)
      return Status::Invalid("cannot read " + what + ": it is not a regular file (a FIFO, a device or a socket)");
    if (st->size > kMaxPipelineFileBytes)
      return Status::Invalid("cannot read " + what + ": it has " + std::to_string(st->size) +
                             " bytes, more than a pipeline file may have (" + std::to_string(kMaxPipelineFileBytes) + ")");
  }
  Result<std::string> text = env->ReadFile(path);
  if (!text.ok()) return Status::Io("cannot read " + what + ": " + text.status().message());
  return text;
}

Result<RawDoc> ReadDocument(const std::string& text, IncludeChain& chain, Env* env, VarScope& env_vars) {
  const std::string file = chain.files.back().second;
  SEQFLOW_ASSIGN_OR_RETURN(std::vector<MapEntry> entries, TopLevelEntries(text, file));
  RawDoc doc;
  std::vector<Include> includes;
  for (const auto& e : entries) SEQFLOW_RETURN_IF_ERROR(ParseSection(e, file, doc, includes));
  RawDoc merged;
  for (const auto& inc : includes) {
    SEQFLOW_ASSIGN_OR_RETURN(RawDoc included, ReadInclude(inc, chain, env, env_vars));
    Merge(merged, std::move(included));
  }
  merged.name = doc.name;
  Merge(merged, std::move(doc));
  return merged;
}

}  // namespace seqflow::dsl

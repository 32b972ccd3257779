#include "engine/dsl/vars.h"

#include <algorithm>
#include <cstdlib>

#include "engine/api/registry.h"

namespace seqflow::dsl {
namespace {

constexpr char kDataVar[] = "SEQFLOW_DATA";

std::string DidYouMean(const std::string& name, const std::map<std::string, VarDef>& defs) {
  std::vector<std::string> names;
  for (const auto& [k, v] : defs) names.push_back(k);
  std::string near = NearestName(name, names);
  return near.empty() ? "" : " — did you mean '" + near + "'?";
}

bool IsDir(Env* env, const std::string& path) {
  Result<FileStat> st = env->Stat(path);
  return st.ok() && st->is_dir;
}

}  // namespace

VarScope::VarScope(std::map<std::string, VarDef> defs, std::string data_default)
    : defs_(std::move(defs)), data_default_(std::move(data_default)) {}

Result<std::string> VarScope::Expand(const std::string& text, const SourceLoc& loc) {
  std::string out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t open = text.find("${", pos);
    if (open == std::string::npos) break;
    size_t close = text.find('}', open + 2);
    if (close == std::string::npos)
      return Status::Invalid("unterminated '${' in '" + text + "'; close it with '}'", loc);
    std::string name = text.substr(open + 2, close - open - 2);
    if (name.empty()) return Status::Invalid("empty variable reference '${}' in '" + text + "'", loc);
    SEQFLOW_ASSIGN_OR_RETURN(std::string value, Lookup(name, loc));
    out += text.substr(pos, open - pos) + value;
    pos = close + 1;
  }
  return out + text.substr(std::min(pos, text.size()));
}

Result<std::map<std::string, std::string>> VarScope::ExpandAll() {
  std::map<std::string, std::string> out;
  for (const auto& [name, def] : defs_) {
    SEQFLOW_ASSIGN_OR_RETURN(out[name], ExpandVar(name));
  }
  return out;
}

Result<std::string> VarScope::Lookup(const std::string& name, const SourceLoc& loc) {
  if (defs_.count(name)) return ExpandVar(name);
  const char* value = std::getenv(name.c_str());
  if (name == kDataVar && (value == nullptr || *value == '\0')) return data_default_;
  if (value != nullptr) return std::string(value);
  return Status::Invalid("undefined variable '${" + name + "}'" + DidYouMean(name, defs_) +
                             " (declare it under vars: or set it in the environment)",
                         loc);
}

Result<std::string> VarScope::ExpandVar(const std::string& name) {
  if (auto done = expanded_.find(name); done != expanded_.end()) return done->second;
  const VarDef& def = defs_.at(name);
  if (auto at = std::find(active_.begin(), active_.end(), name); at != active_.end()) {
    std::string chain;
    for (auto it = at; it != active_.end(); ++it) chain += *it + " -> ";
    return Status::Invalid("variable '" + name + "' refers to itself: " + chain + name, def.loc);
  }
  active_.push_back(name);
  Result<std::string> value = Expand(def.text, def.loc);
  active_.pop_back();
  if (value.ok()) expanded_[name] = *value;
  return value;
}

std::string DefaultDataDir(const std::string& pipeline_dir, Env* env) {
  std::string root = pipeline_dir;
  for (std::string dir = pipeline_dir;; dir = DirName(dir)) {
    if (env->Exists(JoinPath(dir, "CMakeLists.txt")) && IsDir(env, JoinPath(dir, "pipelines"))) {
      root = dir;
      break;
    }
    if (dir == "/" || dir == ".") break;
  }
  return ResolvePath(root, "../shared/data");
}

}  // namespace seqflow::dsl

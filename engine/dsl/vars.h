// ${name} expansion for the DSL (internal to engine/dsl).
//
// A reference resolves to a declared var (whose own text may use other vars and the environment,
// expanded on demand, so an included file's var sees the including file's override), else to
// the environment, else — for SEQFLOW_DATA only — to <project root>/../shared/data.
// Ownership: a VarScope owns copies of its definitions. Thread safety: not thread safe (memoises).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/base/env.h"
#include "engine/base/status.h"

namespace seqflow::dsl {

struct VarDef {
  std::string text;  // as written, before expansion
  SourceLoc loc;
};

class VarScope {
 public:
  // `data_default` is what ${SEQFLOW_DATA} means when the environment leaves it unset or empty.
  VarScope(std::map<std::string, VarDef> defs, std::string data_default);

  // `text` with every ${name} replaced. Errors (undefined name, unterminated ${, a var that
  // refers to itself) are reported at `loc`, or at the var's own place when its text is at fault.
  Result<std::string> Expand(const std::string& text, const SourceLoc& loc);
  // Every declared var, expanded.
  Result<std::map<std::string, std::string>> ExpandAll();

 private:
  Result<std::string> Lookup(const std::string& name, const SourceLoc& loc);
  Result<std::string> ExpandVar(const std::string& name);

  std::map<std::string, VarDef> defs_;
  std::map<std::string, std::string> expanded_;
  std::vector<std::string> active_;  // vars being expanded, outermost first, to report cycles
  std::string data_default_;
};

// <project root>/../shared/data, where the project root is the nearest ancestor of
// `pipeline_dir` (itself included) holding a CMakeLists.txt file and a pipelines/ folder, else
// `pipeline_dir`. REQUIRES: pipeline_dir is absolute.
std::string DefaultDataDir(const std::string& pipeline_dir, Env* env);

}  // namespace seqflow::dsl

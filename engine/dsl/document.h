// One pipeline file and its includes, merged, before ${var} expansion and --set (internal to
// engine/dsl). Merging: included files first, in the order listed, then the including file;
// a var, node or ablation axis of the same name is replaced in place by the later definition,
// and a later repeat section replaces an earlier one.
// Thread safety: not thread safe (expands include paths through a memoising VarScope).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/base/env.h"
#include "engine/base/status.h"
#include "engine/dsl/sections.h"
#include "engine/dsl/spec.h"
#include "engine/dsl/vars.h"

namespace seqflow::dsl {

struct RawDoc {
  VarDef name;  // text "" when the file has no name:
  std::map<std::string, VarDef> vars;
  std::vector<NodeSpec> nodes;          // file order; texts not expanded
  std::vector<AblationAxis> ablations;  // texts not expanded
  std::optional<RawRepeat> repeat;      // a later file's replaces an earlier one's
};

// The files being read, outermost first: (absolute path, name shown in errors), and how many
// files the whole tree of includes has read so far.
struct IncludeChain {
  std::vector<std::pair<std::string, std::string>> files;
  int files_read = 1;
};

// Bounds on what a pipeline's files may ask of the parser: includes nest at most kMaxIncludeDepth
// files deep, a pipeline reads at most kMaxIncludedFiles files in all (an include tree that
// repeats a file fans out exponentially), and each is a regular file of at most
// kMaxPipelineFileBytes (a FIFO or a device would block the reader, a huge file its memory; 10^6
// node instances written out take ~90 MB).
inline constexpr int kMaxIncludeDepth = 16;
inline constexpr int kMaxIncludedFiles = 1000;
inline constexpr uint64_t kMaxPipelineFileBytes = uint64_t{256} << 20;

// The text of pipeline file `path` within the bounds above; errors say "cannot read `what`: ..."
// (Io when reading fails, Invalid for a file out of bounds).
Result<std::string> ReadPipelineFile(Env* env, const std::string& path, const std::string& what);

// Parses `text`, the file chain.back(), and recursively its includes (resolved against its
// folder, read through `env`, their paths expanded with `env_vars` — environment only, since
// vars are not known yet). An include already on the chain is a cycle error.
// REQUIRES: !chain.files.empty().
Result<RawDoc> ReadDocument(const std::string& text, IncludeChain& chain, Env* env, VarScope& env_vars);

}  // namespace seqflow::dsl

// Parsers of the sections of one pipeline file (internal to engine/dsl): vars, nodes, ablations
// and repeats, as written, before ${var} expansion. Each takes the section's MapEntry (so an
// empty or misshapen section is reported at its key) and the file name for SourceLocs.
// Thread safety: pure functions.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/base/status.h"
#include "engine/dsl/spec.h"
#include "engine/dsl/vars.h"
#include "engine/dsl/yaml_read.h"

namespace seqflow::dsl {

// `vars: {k: v, ...}`; every value a scalar. An empty section is no vars.
Result<std::map<std::string, VarDef>> ParseVars(const MapEntry& section, const std::string& file);

// `nodes: {NAME: {kind: K, in: ..., PARAM: VALUE, ...}, ...}` in file order. Nested parameter
// maps flatten to dotted names; a list of scalars becomes a list parameter.
Result<std::vector<NodeSpec>> ParseNodes(const MapEntry& section, const std::string& file);

// `ablations: {AXIS: {NODE.FIELD: [v1, v2], ...}, ...}`. Checks each axis's shape (equal value
// counts); whether NODE exists is checked on the merged pipeline (CheckAblationTargets).
Result<std::vector<AblationAxis>> ParseAblations(const MapEntry& section, const std::string& file);

// Every ablation target names an existing node and a field that can vary.
Status CheckAblationTargets(const PipelineSpec& spec);

// `repeat: N` or `repeats: {seed: [s1, ...]}` as written, before ${var} expansion.
struct RawRepeat {
  std::string key;  // "repeat" or "repeats"
  SourceLoc loc;    // of the key
  RawParam value;   // repeat: the count (a scalar); repeats: the seeds (a list)
};

// Checks the shape: `repeat` a scalar; `repeats` a map whose only key is `seed`, holding a
// non-empty list of single values.
Result<RawRepeat> ParseRepeat(const MapEntry& section, const std::string& file);

// After expansion: `repeat` must be a positive integer N (seeds "1".."N"); seeds are distinct.
Result<RepeatSpec> ResolveRepeat(const RawRepeat& raw);

// With a repeat section, no ablation axis may be named kRepeatAxis.
Status CheckRepeatAxis(const PipelineSpec& spec);

// Each of `runs` once per seed of `repeat` (see ExpandAblations).
Result<std::vector<RunVariant>> RepeatRuns(const std::vector<RunVariant>& runs, const RepeatSpec& repeat,
                                           const TakesSeed& takes_seed);

// Sets `field` ("kind" or a parameter name) of `node` to `value`.
// REQUIRES: value is a scalar when field == "kind".
void ApplyField(NodeSpec& node, const std::string& field, const RawParam& value);

// "a" or "[a, b]": the text of a value for messages and summary.json.
std::string RawText(const RawParam& value);

}  // namespace seqflow::dsl

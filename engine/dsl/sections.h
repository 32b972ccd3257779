// Parsers of the sections of one pipeline file (internal to engine/dsl): vars, nodes and
// ablations, as written, before ${var} expansion. Each takes the section's MapEntry (so an empty
// or misshapen section is reported at its key) and the file name for SourceLocs.
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

// Sets `field` ("kind" or a parameter name) of `node` to `value`.
// REQUIRES: value is a scalar when field == "kind".
void ApplyField(NodeSpec& node, const std::string& field, const RawParam& value);

// "a" or "[a, b]": the text of a value for messages and summary.json.
std::string RawText(const RawParam& value);

}  // namespace seqflow::dsl

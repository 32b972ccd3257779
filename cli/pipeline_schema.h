// A JSON Schema (draft-07) of the pipeline language, generated from the registry, so YAML editors
// (e.g. the YAML language server: `# yaml-language-server: $schema=seqflow.schema.json`) complete
// kinds, ports and parameters and flag unknown or mistyped ones as the engine would.
//
// Every node is an object whose `kind` is one of the registry's kinds; per kind, the allowed keys
// are `kind`, `in` (the kind's ports, by name or as a list), `role`, `oracle`, `transductive` and
// the kind's parameters (dotted names also as nested maps), each with its type, default, choices
// and doc. A scalar may always be a `${var}` reference. What the schema cannot see (var expansion,
// includes, whether an upstream node exists, port types) stays the engine's validation.
#pragma once

#include <string>

#include "engine/api/registry.h"

namespace seqflow::cli {

// The schema as JSON text (indented).
std::string PipelineSchema(const Registry& registry);

}  // namespace seqflow::cli

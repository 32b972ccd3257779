// --set overrides (internal to engine/dsl): "k=v" sets var k; "NODE.FIELD=v" sets a node's kind
// or a (dotted) parameter. A value written "[a, b]" is a list. Every override is located at
// file "--set", line 0, so errors it causes say where the bad value came from.
// Thread safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "engine/api/params.h"
#include "engine/base/status.h"
#include "engine/dsl/document.h"
#include "engine/dsl/spec.h"

namespace seqflow::dsl {

struct SetOverride {
  std::string var;          // set when the override addresses a var
  std::string node, field;  // set when it addresses a node
  RawParam value;           // not yet ${var}-expanded
};

// Splits and classifies every override against the vars and nodes of `doc`. Errors: no '=',
// a name that is neither a var nor NODE.FIELD of an existing node (with did-you-mean), a list
// given to a var or to a kind, an attempt to set `in`.
Result<std::vector<SetOverride>> ParseOverrides(const Overrides& overrides, const RawDoc& doc);

}  // namespace seqflow::dsl

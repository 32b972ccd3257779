// Spec: a pipeline file as plain structs, after includes, vars and --set are applied, before
// any kind is looked up. Every element keeps the SourceLoc it came from, so later stages
// (graph validation, kind checks) can report file:line:col.
//
// YAML form (DESIGN §3):
//   name: NAME
//   include: other.yaml | [a.yaml, b.yaml]   # their vars/nodes/ablations merge; this file wins
//   vars: {k: v, ...}                        # ${k} and ${ENV} expand in every scalar
//   nodes:
//     NODE: {kind: KIND, in: [A, B] | {port: A, port2: [B, C]}, PARAM: VALUE, ...}
//           role: test | dev                   # this node's output is test (dev) data
//           oracle: true | transductive: true  # may choose by / learn from test inputs
//   ablations:
//     AXIS: {NODE.kind: [k1, k2], NODE.PARAM: [v1, v2]}   # zipped; axes form a grid
//   repeat: N | repeats: {seed: [s1, s2, ...]}  # N = seeds 1..N; at most one of the two
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/api/params.h"
#include "engine/base/env.h"
#include "engine/base/status.h"

namespace seqflow {

struct InputRef {
  std::string port;    // "" for the list form `in: [a, b]`
  std::string source;  // upstream node name
  SourceLoc loc;
};

// What a node's output is, for the data-role check (engine/graph/data_roles.cpp): test data may
// only be decoded and evaluated, dev data anything but trained on.
enum class DataRole { kNone, kDev, kTest };

struct NodeSpec {
  std::string name;
  SourceLoc loc;       // of the node's key
  std::string kind;
  SourceLoc kind_loc;  // of the kind's value
  bool in_is_list = false;
  std::vector<InputRef> inputs;            // in YAML order
  std::map<std::string, RawParam> params;  // dotted names; `kind`, `in` and the keys below excluded
  DataRole role = DataRole::kNone;
  SourceLoc role_loc;
  // Waivers of the data-role check, said aloud in the pipeline: an oracle row chooses by test
  // data (its selecting ports may take it); a transductive learner fits on the test sentences'
  // tokens (its input-only ports may take them).
  bool oracle = false;
  bool transductive = false;
  SourceLoc waiver_loc;
};

// One ablation axis: every target gets one value per setting; all targets of an axis have the
// same number of values and move together.
struct AblationTarget {
  std::string node;
  std::string field;  // "kind" or a (dotted) parameter name
  std::vector<RawParam> values;
  SourceLoc loc;
};
struct AblationAxis {
  std::string name;
  SourceLoc loc;
  std::vector<AblationTarget> targets;
  size_t size() const { return targets.empty() ? 0 : targets[0].values.size(); }
};

// The name of the axis that `repeat:` / `repeats:` adds; no ablation axis may take it then.
inline constexpr const char kRepeatAxis[] = "repeat";

// Repetitions: every run once per seed, with the parameter `seed` of every node whose kind
// declares one set to that seed. Which kinds take a seed is the registry's knowledge, so
// ExpandAblations asks its caller (TakesSeed).
struct RepeatSpec {
  std::vector<std::string> seeds;  // after ${var} expansion, in order
  std::string written;             // "repeat: 4" or "repeats: {seed: [1, 2]}", for messages
  SourceLoc loc;                   // of the `repeat` / `repeats` key
};

struct PipelineSpec {
  std::string name;
  std::string file;  // absolute path of the top-level pipeline file
  std::string dir;   // its folder: relative paths resolve against it
  std::map<std::string, std::string> vars;  // after expansion and --set
  std::vector<NodeSpec> nodes;              // in file order
  std::vector<AblationAxis> ablations;
  std::optional<RepeatSpec> repeat;
  // The node fields --set gave ("NODE.FIELD"), so that an axis that would replace one is an error
  // rather than a --set silently ignored.
  std::vector<std::string> set_fields;

  const NodeSpec* FindNode(const std::string& name) const;
  NodeSpec* FindNode(const std::string& name);
};

// One concrete run of a pipeline: the spec with one value of every selected axis applied (its
// `ablations` and `repeat` are empty then).
struct RunVariant {
  // "NODE.FIELD" -> value text, for summary.json; empty for the base run.
  std::map<std::string, std::string> assignment;
  // Axis name -> the value text of its first target ("decoder" -> "decode.sms"): the short
  // label of the run for tables.
  std::map<std::string, std::string> axes;
  PipelineSpec spec;
};

// Overrides from the command line: "k=v" sets var k, or when k is "NODE.FIELD" (a node name
// followed by a dot) sets that node's kind or parameter.
struct Overrides {
  std::vector<std::string> sets;
};

// Parses `path` (and its includes). Errors name file:line:col, what was expected and the fix.
// `${SEQFLOW_DATA}` defaults to ../shared/data beside the project root when unset (the project
// root is the nearest ancestor of the pipeline holding a CMakeLists.txt and a pipelines/ folder,
// else the pipeline's folder).
Result<PipelineSpec> ParsePipelineFile(const std::string& path, const Overrides& overrides, Env* env);
// Same, from text already in memory; `path` names it in errors and anchors relative paths.
Result<PipelineSpec> ParsePipelineText(const std::string& text, const std::string& path, const Overrides& overrides,
                                       Env* env);

// True when node kind `kind` declares a `seed` parameter.
using TakesSeed = std::function<bool(const std::string& kind)>;

// The runs an ablation selection asks for: no axes -> one base run; `axis` "" -> the grid of all
// axes; else that one axis. Unknown axis -> error listing the axes. With spec.repeat, every
// selected run is repeated once per seed (seeds vary fastest; axes["repeat"] = the seed), also
// when `axis` names another axis; `axis` "repeat" selects the repetitions alone. The seed goes
// to every node whose kind (after the run's kind ablations) `takes_seed`; a run with no such
// node is an error at the repeat key. An empty `takes_seed` takes no seed anywhere.
//
// The expansion is bounded before it is built: when the runs times the spec's nodes (the node
// instances every later stage binds, keys and plans) would pass `max_instances`, it is an error
// at the `repeat:` key (or at the ablation axis that passes it) saying how many and how to split
// the grid. A 60 x 8 grid is a study; `repeat: 100000` over a grid, from a typo or a fuzzer, would
// take the memory of the machine before the first run was keyed.
inline constexpr size_t kMaxNodeInstances = 1000000;
Result<std::vector<RunVariant>> ExpandAblations(PipelineSpec spec, const std::string& axis,
                                                const TakesSeed& takes_seed = {},
                                                size_t max_instances = kMaxNodeInstances);

}  // namespace seqflow

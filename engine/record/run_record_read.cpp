// ParseRunRecord: the one reader of summary.json (format and rules in run_record.h).
//
// Each field is read with its JSON pointer; a wrong type or a missing required field throws
// StatusError naming the pointer, which ParseRunRecord turns into a located Status — the
// record is read whole or not at all.
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "engine/record/run_record.h"

namespace seqflow {
namespace {

using Json = nlohmann::json;

[[noreturn]] void Fail(const std::string& path, const std::string& what) {
  throw StatusError(Status::Invalid((path.empty() ? "/" : path) + ": " + what));
}

[[noreturn]] void WrongType(const Json& j, const std::string& path, const char* expected) {
  Fail(path, std::string("expected ") + expected + ", got " + j.type_name());
}

const Json& Object(const Json& j, const std::string& path) {
  if (!j.is_object()) WrongType(j, path, "an object");
  return j;
}

const Json& Array(const Json& j, const std::string& path) {
  if (!j.is_array()) WrongType(j, path, "an array");
  return j;
}

std::string Key(const std::string& path, const std::string& key) { return path + "/" + key; }

// obj[key], or null when optional and absent. REQUIRES: obj is an object.
const Json* Find(const Json& obj, const std::string& path, const char* key, bool required) {
  auto it = obj.find(key);
  if (it != obj.end()) return &*it;
  if (required) Fail(path, std::string("missing field \"") + key + "\"");
  return nullptr;
}

std::string String(const Json& j, const std::string& path) {
  if (!j.is_string()) WrongType(j, path, "a string");
  return j.get<std::string>();
}

// null (a non-finite number when written) reads as NaN.
double Number(const Json& j, const std::string& path) {
  if (j.is_null()) return std::numeric_limits<double>::quiet_NaN();
  if (!j.is_number()) WrongType(j, path, "a number");
  return j.get<double>();
}

bool Bool(const Json& j, const std::string& path) {
  if (!j.is_boolean()) WrongType(j, path, "true or false");
  return j.get<bool>();
}

std::vector<std::string> Strings(const Json& j, const std::string& path) {
  std::vector<std::string> out;
  for (size_t i = 0; i < Array(j, path).size(); ++i) out.push_back(String(j[i], Key(path, std::to_string(i))));
  return out;
}

std::map<std::string, std::string> StringMap(const Json& j, const std::string& path) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : Object(j, path).items()) out[k] = String(v, Key(path, k));
  return out;
}

// Optional field readers: `out` keeps its default when the field is absent.
template <class T, class Read>
void Optional(const Json& obj, const std::string& path, const char* key, T& out, Read read) {
  if (const Json* j = Find(obj, path, key, false)) out = read(*j, Key(path, key));
}

AttachmentSpec ReadAttachment(const Json& j, const std::string& path) {
  Object(j, path);
  AttachmentSpec a;
  a.suffix = String(*Find(j, path, "suffix", true), Key(path, "suffix"));
  const std::string type = String(*Find(j, path, "type", true), Key(path, "type"));
  std::optional<AttachmentType> named = AttachmentTypeNamed(type);
  if (!named) Fail(Key(path, "type"), "unknown attachment type \"" + type + "\"");
  a.type = *named;
  Optional(j, path, "x", a.x, String);
  Optional(j, path, "x_label", a.x_label, String);
  Optional(j, path, "y", a.y, Strings);
  Optional(j, path, "y_fallback", a.y_fallback, Strings);
  Optional(j, path, "mark_max", a.mark_max, Bool);
  Optional(j, path, "x_is_lambda", a.x_is_lambda, Bool);
  return a;
}

RecordSpec ReadKind(const Json& j, const std::string& path) {
  Object(j, path);
  RecordSpec spec;
  std::string role = NodeRoleName(spec.role);
  Optional(j, path, "role", role, String);
  std::optional<NodeRole> named = NodeRoleNamed(role);
  if (!named) Fail(Key(path, "role"), "unknown role \"" + role + "\"");
  spec.role = *named;
  Optional(j, path, "headline", spec.headline, Strings);
  Optional(j, path, "chosen_lambda", spec.chosen_lambda, String);
  if (const Json* systems = Find(j, path, "per_system", false)) {
    spec.per_system = true;
    const std::string at = Key(path, "per_system");
    Optional(Object(*systems, at), at, "p_prefix", spec.system_p_prefix, String);
  }
  if (const Json* list = Find(j, path, "attachments", false))
    for (size_t i = 0; i < Array(*list, Key(path, "attachments")).size(); ++i)
      spec.attachments.push_back(ReadAttachment((*list)[i], Key(Key(path, "attachments"), std::to_string(i))));
  return spec;
}

NodeStatus ReadStatus(const Json& j, const std::string& path) {
  const std::string name = String(j, path);
  for (NodeStatus s : {NodeStatus::kComputed, NodeStatus::kCached, NodeStatus::kFailed, NodeStatus::kSkipped})
    if (name == NodeStatusName(s)) return s;
  Fail(path, "unknown status \"" + name + "\" (computed, cached, failed or skipped)");
}

NodeRecord ReadNode(const Json& j, const std::string& path) {
  Object(j, path);
  NodeRecord node;
  node.kind = String(*Find(j, path, "kind", true), Key(path, "kind"));
  node.status = ReadStatus(*Find(j, path, "status", true), Key(path, "status"));
  Optional(j, path, "seconds", node.seconds, Number);
  Optional(j, path, "key", node.key, String);
  Optional(j, path, "params", node.params, StringMap);
  Optional(j, path, "attachments", node.attachments, Strings);
  Optional(j, path, "files", node.files, Strings);
  if (!node.files.empty() && node.files.size() != node.attachments.size())
    Fail(Key(path, "files"), "lists " + std::to_string(node.files.size()) + " files for " +
                                 std::to_string(node.attachments.size()) + " attachments");
  Optional(j, path, "error", node.error, String);
  if (const Json* metrics = Find(j, path, "metrics", false))
    for (const auto& [name, value] : Object(*metrics, Key(path, "metrics")).items())
      node.metrics[name] = Number(value, Key(Key(path, "metrics"), name));
  return node;
}

// Edges name their nodes; an edge must join two recorded nodes in topological order.
GraphShape ReadGraph(const Json& j, const std::string& path) {
  Object(j, path);
  GraphShape graph;
  std::map<std::string, int> index;
  if (const Json* nodes = Find(j, path, "nodes", false))
    for (size_t i = 0; i < Array(*nodes, Key(path, "nodes")).size(); ++i) {
      const std::string at = Key(Key(path, "nodes"), std::to_string(i));
      const Json& node = Object((*nodes)[i], at);
      std::string name = String(*Find(node, at, "name", true), Key(at, "name"));
      index[name] = static_cast<int>(graph.nodes.size());
      graph.nodes.push_back({std::move(name), String(*Find(node, at, "kind", true), Key(at, "kind"))});
    }
  if (const Json* edges = Find(j, path, "edges", false))
    for (size_t i = 0; i < Array(*edges, Key(path, "edges")).size(); ++i) {
      const std::string at = Key(Key(path, "edges"), std::to_string(i));
      const Json& edge = Object((*edges)[i], at);
      auto from = index.find(String(*Find(edge, at, "from", true), Key(at, "from")));
      auto to = index.find(String(*Find(edge, at, "to", true), Key(at, "to")));
      if (from == index.end() || to == index.end() || from->second >= to->second)
        Fail(at, "the edge does not join two graph nodes in topological order");
      graph.edges.push_back({from->second, to->second, String(*Find(edge, at, "port", true), Key(at, "port"))});
    }
  return graph;
}

RunRecord ReadRun(const Json& j, const std::string& path) {
  Object(j, path);
  RunRecord run;
  Optional(j, path, "ablation", run.ablation, StringMap);
  Optional(j, path, "axes", run.axes, StringMap);
  Optional(j, path, "ok", run.ok, Bool);
  Optional(j, path, "seconds", run.seconds, Number);
  Optional(j, path, "graph", run.graph, ReadGraph);
  const std::string nodes = Key(path, "nodes");
  for (const auto& [name, node] : Object(*Find(j, path, "nodes", true), nodes).items())
    run.nodes[name] = ReadNode(node, Key(nodes, name));
  return run;
}

RunInvocation ReadInvocation(const Json& j, const std::string& path) {
  Object(j, path);
  RunInvocation call;
  Optional(j, path, "command", call.command, Strings);
  Optional(j, path, "set", call.sets, Strings);
  Optional(j, path, "started", call.started, String);
  Optional(j, path, "finished", call.finished, String);
  Optional(j, path, "host", call.host, String);
  Optional(j, path, "pipeline_file", call.pipeline_file, String);
  Optional(j, path, "git_commit", call.git_commit, String);
  Optional(j, path, "git_tree", call.git_tree, String);
  return call;
}

PipelineRecord ReadPipeline(const Json& j) {
  Object(j, "");
  PipelineRecord record;
  record.pipeline = String(*Find(j, "", "pipeline", true), "/pipeline");
  Optional(j, "", "seconds", record.seconds, Number);
  Optional(j, "", "repeat_axis", record.repeat_axis, String);
  Optional(j, "", "build", record.build, String);
  Optional(j, "", "invocation", record.invocation, ReadInvocation);
  if (const Json* kinds = Find(j, "", "kinds", false))
    for (const auto& [name, spec] : Object(*kinds, "/kinds").items())
      record.kinds[name] = ReadKind(spec, Key("/kinds", name));
  const Json& runs = Array(*Find(j, "", "runs", true), "/runs");
  for (size_t i = 0; i < runs.size(); ++i) record.runs.push_back(ReadRun(runs[i], "/runs/" + std::to_string(i)));
  return record;
}

// 1-based line and column of the byte before `byte` (nlohmann counts the offending byte).
SourceLoc LocOf(std::string_view text, size_t byte, const std::string& file) {
  SourceLoc loc{file, 1, 1};
  for (size_t i = 0; i + 1 < byte && i < text.size(); ++i) {
    if (text[i] == '\n')
      ++loc.line, loc.col = 1;
    else
      ++loc.col;
  }
  return loc;
}

}  // namespace

Result<PipelineRecord> ParseRunRecord(std::string_view json, const std::string& file) {
  Json j;
  try {
    j = Json::parse(json);
  } catch (const Json::parse_error& e) {
    std::string what = e.what();  // "[json.exception.parse_error.101] parse error at line 1, column 2: ..."
    const size_t colon = what.find(": ");
    return Status::Invalid("invalid JSON at byte " + std::to_string(e.byte) + ": " +
                               (colon == std::string::npos ? what : what.substr(colon + 2)),
                           LocOf(json, e.byte, file));
  }
  try {
    return ReadPipeline(j);
  } catch (const StatusError& e) {
    return Status::Invalid("not a run record: " + e.status().message(), SourceLoc{file});
  }
}

Result<PipelineRecord> ReadRunRecord(const std::string& dir, Env* env) {
  const std::string path = JoinPath(dir, "summary.json");
  SEQFLOW_ASSIGN_OR_RETURN(std::string text, env->ReadFile(path));
  return ParseRunRecord(text, path);
}

}  // namespace seqflow

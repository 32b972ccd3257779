// Cache keys and the memoising file hasher.
#include <algorithm>
#include <mutex>

#include "engine/base/hash.h"
#include "engine/base/numerics.h"
#include "engine/graph/build.h"

namespace seqflow {

struct FileHasher::Impl {
  struct Memo {
    uint64_t size;
    int64_t mtime_ns;
    std::string hash;
  };
  Env* env = nullptr;  // null: hash by name
  std::mutex mu;
  std::map<std::string, Memo> by_path;
};

FileHasher::FileHasher(Env* env) : impl_(std::make_shared<Impl>()) { impl_->env = env; }

FileHasher FileHasher::ByName() { return FileHasher(nullptr); }

Result<std::string> FileHasher::Hash(const std::string& path) {
  if (impl_->env == nullptr) {
    Hasher by_name;
    by_name.Add(path);
    return by_name.HexDigest();
  }
  Result<FileStat> stat = impl_->env->Stat(path);
  if (!stat.ok()) return Status::Io(graph::CannotReadFile(path, stat.status()));
  if (stat->is_dir) return Status::Io("cannot read file '" + path + "': Is a directory");
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    auto it = impl_->by_path.find(path);
    if (it != impl_->by_path.end() && it->second.size == stat->size && it->second.mtime_ns == stat->mtime_ns)
      return it->second.hash;
  }
  if (stat->is_special)
    return Status::Io("cannot read file '" + path + "': not a regular file (a FIFO, a device or a socket)");
  // Read outside the lock, a MiB at a time: hashing a large corpus must neither stall other
  // callers nor hold the file in memory.
  Hasher hasher;
  Status read = impl_->env->ReadFileChunks(path, size_t{1} << 20, [&](std::string_view chunk) {
    hasher.AddRaw(chunk);
    return Status::Ok();
  });
  if (!read.ok()) return Status::Io(graph::CannotReadFile(path, read));
  std::string hash = hasher.HexDigest();
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->by_path[path] = Impl::Memo{stat->size, stat->mtime_ns, hash};
  return hash;
}

namespace graph {
namespace {

// Lists are hashed item by item, so ["a,b"] and ["a", "b"] differ although they print alike.
void HashValue(Hasher& h, const ParamValue& value) {
  h.AddU64(value.index());
  if (const auto* strings = std::get_if<std::vector<std::string>>(&value)) {
    h.AddU64(strings->size());
    for (const auto& s : *strings) h.Add(s);
  } else if (const auto* doubles = std::get_if<std::vector<double>>(&value)) {
    h.AddU64(doubles->size());
    for (double d : *doubles) h.Add(FormatParamValue(d));
  } else {
    h.Add(FormatParamValue(value));
  }
}

}  // namespace

std::string CannotReadFile(const std::string& path, const Status& env_error) {
  // Env messages read "<what> <path>: <reason>"; keep the reason only.
  const std::string& msg = env_error.message();
  size_t at = msg.find(path + ": ");
  std::string reason = at == std::string::npos ? msg : msg.substr(at + path.size() + 2);
  return "cannot read file '" + path + "': " + reason;
}

void ComputeKey(const BoundNode& bound, const Dag& dag, DagNode& node) {
  Hasher h, family;
  const std::vector<BudgetParam>& budget = bound.kind->budget;
  auto in_budget = [&](const std::string& name) {
    return std::any_of(budget.begin(), budget.end(), [&](const BudgetParam& p) { return p.name == name; });
  };
  h.Add("seqflow.node.v1");
  node.key_parts["numerics"] = std::string(NumericsId());
  h.Add("numerics").Add(node.key_parts["numerics"]);
  node.key_parts["kind"] = bound.kind->name + "@" + bound.kind->version;
  h.Add("kind").Add(node.key_parts["kind"]);
  for (const auto& [name, value] : bound.params) {
    auto file = bound.file_hashes.find(name);
    if (file != bound.file_hashes.end()) {
      node.key_parts["file:" + name] = file->second;
      h.Add("file:" + name).Add(file->second);
    } else {
      node.key_parts["param:" + name] = FormatParamValue(value);
      h.Add("param:" + name);
      HashValue(h, value);
      if (!budget.empty() && in_budget(name)) continue;
      family.Add("param:" + name);
      HashValue(family, value);
    }
  }
  for (const auto& input : node.inputs) {
    std::string joined;
    h.Add("input:" + input.port).AddU64(input.sources.size());
    for (int source : input.sources) {
      joined += (joined.empty() ? "" : ",") + dag.nodes[source].key;
      h.Add(dag.nodes[source].key);
    }
    node.key_parts["input:" + input.port] = joined;
  }
  node.key = h.HexDigest();
  if (!budget.empty()) {
    // Everything but the budget parameters: numerics, kind, files and inputs as in the key.
    Hasher whole;
    whole.Add("seqflow.family.v1");
    for (const auto& [part, text] : node.key_parts)
      if (part.rfind("param:", 0) != 0) whole.Add(part).Add(text);
    whole.Add(family.HexDigest());
    node.family_key = whole.HexDigest();
  }
}

}  // namespace graph
}  // namespace seqflow

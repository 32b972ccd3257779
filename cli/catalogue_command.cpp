#include <algorithm>
#include <cstdio>
#include <ctime>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/pipeline_schema.h"
#include "engine/base/log.h"
#include "engine/cache/cache.h"
#include "engine/cache/cache_leases.h"

namespace seqflow::cli {
namespace {

// The role and what the run record gets: "role evaluator; reports f1, accuracy; attaches
// sentences.csv (sentence_counts)". Nothing for a kind that declares nothing.
void PrintRecordSpec(const RecordSpec& spec) {
  if (spec == RecordSpec{}) return;
  std::string line = std::string("  role ") + NodeRoleName(spec.role);
  auto join = [](const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
  };
  if (!spec.headline.empty()) line += "; reports " + join(spec.headline);
  if (spec.per_system && spec.system_p_prefix.empty()) line += " per system (METRIC.SYSTEM)";
  if (spec.per_system && !spec.system_p_prefix.empty())
    line += " per system (METRIC.SYSTEM; p-value against the first as " + spec.system_p_prefix + "METRIC.SYSTEM)";
  if (!spec.chosen_lambda.empty()) line += "; chosen λ in metric " + spec.chosen_lambda;
  for (const AttachmentSpec& a : spec.attachments)
    line += "; attaches " + a.suffix + " (" + AttachmentTypeName(a.type) +
            (a.type == AttachmentType::kTable ? ": " + join(a.y) + " against " + a.x : std::string()) + ")";
  std::printf("%s\n", line.c_str());
}

void PrintKind(const Registry& registry, const KindSpec& kind) {
  std::printf("%s  (version %s) -> %s\n", kind.name.c_str(), kind.version.c_str(), kind.output_type.c_str());
  if (!kind.doc.empty()) std::printf("  %s\n", kind.doc.c_str());
  PrintRecordSpec(kind.record);
  std::printf("  as a cluster task: %s, %d MB%s\n", kind.resources.parallel ? "--task-threads cores" : "1 core",
              kind.resources.memory_mb, kind.resources.data_parallel ? ", --task-processes MPI ranks" : "");
  for (const auto& port : kind.inputs) {
    const std::string use = port.use == PortUse::kReads ? "" : fmt::format(" [{}]", PortUseName(port.use));
    std::printf("  in  %-14s %s%s%s  %s%s\n", port.name.c_str(), registry.PortTypeText(port).c_str(),
                port.list ? "[]" : "", port.optional ? " (optional)" : "", port.doc.c_str(), use.c_str());
  }
  // Columns as wide as this kind's longest name, type and default.
  size_t name_width = 0, type_width = 0, default_width = 0;
  auto default_text = [](const ParamSpec& p) {
    return p.default_value ? ReadableParamText(FormatParamValue(*p.default_value)) : std::string("required");
  };
  for (const auto& p : kind.params) {
    name_width = std::max(name_width, p.name.size());
    type_width = std::max(type_width, p.TypeText().size());
    default_width = std::max(default_width, default_text(p).size());
  }
  for (const auto& p : kind.params) {
    std::string choices;
    for (const auto& c : p.choices) choices += (choices.empty() ? " {" : "|") + c;
    if (!choices.empty()) choices += "}";
    std::printf("%s\n", fmt::format("  {:<{}}  {:<{}}  = {:<{}}{}  {}", p.name, name_width, p.TypeText(), type_width,
                                    default_text(p), default_width, choices, p.doc)
                            .c_str());
  }
}

// Every kind described, as docs/reference/kinds.md holds it: a section per folder (the kind's
// prefix), each kind as `seqflow kinds KIND` prints it.
void PrintKindsMarkdown(const Registry& registry) {
  std::printf(
      "# Node kinds\n\n"
      "Every kind a pipeline can use, as `seqflow kinds KIND` describes it: its output type, ports (`[fits]`: "
      "trains on their sentences and labels; `[fits inputs]`: learns from their tokens alone; `[selects]`: chooses "
      "or fits held-out weights by them; the others only read), parameters with their types, defaults and meaning, and what "
      "it adds to the run record. A kind's prefix is its folder under `nodes/`.\n\n"
      "This page is generated: `build/seqflow kinds --markdown > docs/reference/kinds.md`; a test fails when it "
      "differs from the binary's.\n");
  std::string folder;
  for (const KindSpec* kind : registry.Kinds()) {
    const std::string prefix = kind->name.substr(0, kind->name.find('.'));
    if (prefix != folder) {
      folder = prefix;
      std::printf("\n## %s\n", folder.c_str());
    }
    std::printf("\n### %s\n\n```text\n", kind->name.c_str());
    std::fflush(stdout);
    PrintKind(registry, *kind);
    std::printf("```\n");
  }
}

}  // namespace

int KindsCommand(const std::string& name, bool markdown) {
  const Registry& registry = TheRegistry();
  if (markdown) {
    PrintKindsMarkdown(registry);
    return 0;
  }
  if (!name.empty()) {
    const KindSpec* kind = registry.FindKind(name);
    if (kind == nullptr) {
      std::vector<std::string> names;
      for (const KindSpec* k : registry.Kinds()) names.push_back(k->name);
      std::string near = NearestName(name, names);
      LogError("unknown kind '" + name + "'" + (near.empty() ? "" : " — did you mean '" + near + "'?"));
      return 2;
    }
    PrintKind(registry, *kind);
    return 0;
  }
  for (const KindSpec* kind : registry.Kinds())
    std::printf("%-24s -> %-12s %s\n", kind->name.c_str(), kind->output_type.c_str(), kind->doc.c_str());
  return 0;
}

int SchemaCommand() {
  std::fputs(PipelineSchema(TheRegistry()).c_str(), stdout);
  return 0;
}

int CacheLsCommand(const std::string& cache_dir) {
  Cache cache(CacheDir(cache_dir), &TheRegistry(), Env::Default());
  Result<std::vector<CacheListing>> entries = cache.List();
  if (!entries.ok()) {
    LogError(entries.status().ToString());
    return 1;
  }
  uint64_t total = 0;
  for (const auto& e : *entries) {
    std::time_t t = static_cast<std::time_t>(e.mtime_ns / 1000000000LL);
    char when[32];
    std::strftime(when, sizeof when, "%Y-%m-%d %H:%M", std::localtime(&t));
    std::printf("%s  %-22s %-12s %10llu  %s\n", e.key.c_str(), e.kind.c_str(), e.artifact_type.c_str(),
                static_cast<unsigned long long>(e.bytes), when);
    total += e.bytes;
  }
  std::printf("%zu entries, %.1f MB in %s\n", entries->size(), total / 1e6, cache.dir().c_str());
  return 0;
}

namespace {

// gc and rm delete files: only in a folder a seqflow run marked as its cache.
bool IsCacheOrLog(const Cache& cache, const char* command) {
  if (cache.IsMarked()) return true;
  LogError(fmt::format("'{}' is not a seqflow cache: it has no CACHEDIR.TAG, which every `seqflow run` writes "
                       "into its cache; `cache {}` removes nothing there. Check --cache (or $SEQFLOW_CACHE); a "
                       "cache made by an older seqflow gets its tag on its next run.",
                       cache.dir(), command));
  return false;
}

// The exit code of a gc or rm that found the cache in use.
constexpr int kCacheInUse = 3;

// gc and rm delete files: only while they hold the cache's gc lease, which no live run, task or
// other gc holds with them (cache_leases.h). 0 with *lease held, else the exit code (logged).
int HoldForGcOrLog(const Cache& cache, CacheLeases& leases, const char* command, std::unique_ptr<KeyLock>* lease) {
  std::vector<LockHolder> users;
  Result<std::unique_ptr<KeyLock>> held = leases.TryHoldForGc(&users);
  if (!held.ok()) {
    LogError(held.status().ToString());
    return 1;
  }
  *lease = std::move(held).value();
  if (*lease != nullptr) return 0;
  std::string who;
  for (const LockHolder& user : users) who += (who.empty() ? "" : ", ") + user.host + " pid " + std::to_string(user.pid);
  LogError(fmt::format("'{}' is in use ({}): `cache {}` removes nothing while a run, a task or another gc uses the "
                       "cache; run it again once they have finished",
                       cache.dir(), who, command));
  return kCacheInUse;
}

}  // namespace

int CacheGcCommand(const std::string& cache_dir, double keep_days) {
  Cache cache(CacheDir(cache_dir), &TheRegistry(), Env::Default());
  if (!IsCacheOrLog(cache, "gc")) return 2;
  CacheLeases leases(cache.dir(), cache.env());
  std::unique_ptr<KeyLock> lease;
  if (const int code = HoldForGcOrLog(cache, leases, "gc", &lease); code != 0) return code;
  Result<GcCounts> removed = cache.Gc(keep_days);
  if (!removed.ok()) {
    LogError(removed.status().ToString());
    return 1;
  }
  std::printf(
      "removed %d entries unused for %g days, %d stale run histories, %d old task files, checkpoints and locks, and %d "
      "old sweep directories; %d files of final states whose entry is gone\n",
      removed->entries, keep_days, removed->histories, removed->task_files, removed->sweeps, removed->final_states);
  return 0;
}

int CacheRmCommand(const std::string& cache_dir, const std::string& kind) {
  if (TheRegistry().FindKind(kind) == nullptr) {
    std::vector<std::string> kinds;
    for (const KindSpec* spec : TheRegistry().Kinds()) kinds.push_back(spec->name);
    const std::string near = NearestName(kind, kinds);
    LogError("cache rm '" + kind + "': no node kind of that name" +
             (near.empty() ? "" : " — did you mean '" + near + "'?") +
             " (seqflow kinds lists them; entries of a kind seqflow no longer has go with cache gc once unused)");
    return 2;
  }
  Cache cache(CacheDir(cache_dir), &TheRegistry(), Env::Default());
  if (!IsCacheOrLog(cache, "rm")) return 2;
  CacheLeases leases(cache.dir(), cache.env());
  std::unique_ptr<KeyLock> lease;
  if (const int code = HoldForGcOrLog(cache, leases, "rm", &lease); code != 0) return code;
  Result<int> removed = cache.RemoveKind(kind);
  if (!removed.ok()) {
    LogError(removed.status().ToString());
    return 1;
  }
  std::printf("removed %d entries of kind %s\n", *removed, kind.c_str());
  return 0;
}

}  // namespace seqflow::cli

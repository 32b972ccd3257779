#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <sstream>
#include <thread>

#include "cli/commands.h"
#include "cli/task_manifest.h"
#include "engine/base/log.h"
#include "engine/cache/cache_leases.h"
#include "engine/exec/executor.h"
#include "engine/exec/task_status.h"
#include "engine/mpi/mpi_process_group.h"

namespace seqflow::cli {
namespace {

// Exit codes (commands.h): 1 the node failed, 2 the task itself is invalid (no manifest, no
// such run or node, a key that changed).
struct TaskOutcome {
  int exit_code = 0;
  Status error;
  NodeStatus status = NodeStatus::kSkipped;
};

TaskOutcome Invalid(Status error) { return TaskOutcome{2, std::move(error)}; }

std::string ThisHost() {
  char name[256] = {};
  return ::gethostname(name, sizeof name - 1) == 0 ? name : "unknown-host";
}

std::string SlurmTaskId() {
  const char* job = std::getenv("SLURM_ARRAY_JOB_ID");
  const char* task = std::getenv("SLURM_ARRAY_TASK_ID");
  if (job != nullptr && task != nullptr) return std::string(job) + "_" + task;
  const char* plain = std::getenv("SLURM_JOB_ID");
  return plain != nullptr ? plain : "";
}

// The keys on line $SLURM_ARRAY_TASK_ID (from 0) of a list file the Slurm executor wrote.
Result<std::vector<std::string>> KeysFromList(Env* env, const std::string& list_file) {
  const char* index_text = std::getenv("SLURM_ARRAY_TASK_ID");
  if (index_text == nullptr) return Status::Invalid("--list needs SLURM_ARRAY_TASK_ID (set by sbatch --array)");
  char* end = nullptr;
  long index = std::strtol(index_text, &end, 10);
  if (*index_text == '\0' || *end != '\0' || index < 0)
    return Status::Invalid(std::string("SLURM_ARRAY_TASK_ID is not an index: '") + index_text + "'");
  SEQFLOW_ASSIGN_OR_RETURN(std::string text, env->ReadFile(list_file));
  std::istringstream lines(text);
  std::string line;
  for (long i = 0; i <= index; ++i)
    if (!std::getline(lines, line)) return Status::Invalid(list_file + " has no line " + std::to_string(index));
  std::istringstream words(line);
  std::vector<std::string> keys;
  for (std::string key; words >> key;) {
    SEQFLOW_RETURN_IF_ERROR(CheckCacheKey(key).Annotate(list_file + ": line " + std::to_string(index)));
    keys.push_back(key);
  }
  if (keys.empty()) return Status::Invalid(list_file + ": line " + std::to_string(index) + " is empty");
  return keys;
}

// Each distinct pipeline (file and overrides) of a bundle is planned once.
class Plans {
 public:
  explicit Plans(Env* env) : env_(env), hasher_(env) {}
  Result<const Pipeline*> Get(const PipelineArgs& args) {
    const std::string id = args.path + "\n" + args.ablation + "\n" + fmt::format("{}", fmt::join(args.sets, "\n"));
    auto found = plans_.find(id);
    if (found == plans_.end()) {
      SEQFLOW_ASSIGN_OR_RETURN(Pipeline planned, LoadPipeline(args, env_, hasher_));
      found = plans_.emplace(id, std::move(planned)).first;
    }
    return &found->second;
  }

 private:
  Env* env_;
  FileHasher hasher_;
  std::map<std::string, Pipeline> plans_;
};

// The keys to run (one, or a bundle's), or none when the node is named by pipeline, run and node.
Result<std::vector<std::string>> KeysToRun(const RunNodeArgs& args, Env* env) {
  if (!args.list_file.empty()) return KeysFromList(env, args.list_file);
  if (!args.key.empty()) {
    SEQFLOW_RETURN_IF_ERROR(CheckCacheKey(args.key));
    return std::vector<std::string>{args.key};
  }
  if (args.pipeline.path.empty() || args.node.empty())
    return Status::Invalid("name the node instance: a KEY, --list FILE, or --pipeline P --node N [--run R]");
  return std::vector<std::string>();
}

// Plans the task's pipeline and runs its node (computed, or already cached). Sets task.key.
TaskOutcome RunTask(TaskManifest& task, const RunNodeArgs& args, Plans& plans, Cache& cache, Env* env,
                    const ProcessGroup* group) {
  Result<const Pipeline*> planned = plans.Get(task.pipeline);
  if (!planned.ok()) return Invalid(planned.status());
  const Pipeline& pipeline = **planned;
  if (task.run < 0 || task.run >= static_cast<int>(pipeline.runs.size()))
    return Invalid(Status::Invalid("the pipeline has " + std::to_string(pipeline.runs.size()) +
                                   " runs; there is no run " + std::to_string(task.run + 1)));
  const Dag& dag = pipeline.runs[task.run].dag;
  const int index = dag.Find(task.node);
  if (index < 0)
    return Invalid(Status::Invalid("run " + std::to_string(task.run + 1) + " has no node '" + task.node + "'"));
  const DagNode& node = dag.nodes[index];
  if (!task.key.empty() && node.key != task.key)
    return Invalid(Status::Invalid("node '" + task.node + "' now has key " + node.key + ", not the task's " + task.key +
                                   ": its pipeline, parameters or data changed since it was submitted"));
  task.key = node.key;
  Dag sub = NodeWithInputs(dag, index);
  ArtifactMemo memo;
  ExecOptions options;
  options.checkpoint_seconds = args.checkpoint_seconds;
  if (group != nullptr && group->size() > 1) {
    // Every rank computes, or none: rank 0's look into the cache decides for all.
    std::string cached = group->rank() == 0 && cache.Contains(node.key) ? "1" : "0";
    if (Status s = group->Broadcast(0, &cached); !s.ok()) return TaskOutcome{1, s};
    if (cached == "1") return TaskOutcome{0, Status::Ok(), NodeStatus::kCached};
    options.force = {node.name};
    options.processes = group;
  }
  options.threads =
      args.threads > 0 ? args.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  options.may_compute = [&node](const DagNode& candidate) {
    if (candidate.key == node.key) return Status::Ok();
    return Status::NotFound("not in the cache (key " + candidate.key + "): run-node computes only '" + node.name +
                            "' and loads its inputs");
  };
  CacheWarnings warnings;
  options.cache_warnings = &warnings;
  RunResult result = Execute(sub, cache, memo, env, options);
  if (!result.ok()) return TaskOutcome{1, result.FirstError()};
  // A task's point is the entry: computed but not stored (a full or read-only cache) is a failure.
  if (!warnings.first_write_failure().ok() && !cache.Contains(node.key))
    return TaskOutcome{1, warnings.first_write_failure().Annotate("node '" + node.name + "': result not cached")};
  return TaskOutcome{0, Status::Ok(), result.nodes.back().status};
}

// Runs one task and leaves its status record (when its key is known); returns its exit code.
int RunOne(const Result<TaskManifest>& resolved, const RunNodeArgs& args, Plans& plans, Cache& cache, Env* env,
           const ProcessGroup* group) {
  const auto start = std::chrono::steady_clock::now();
  TaskStatus record;
  record.host = ThisHost();
  record.job = SlurmTaskId();
  TaskManifest task = resolved.ok() ? *resolved : TaskManifest{};
  TaskOutcome outcome = resolved.ok() ? RunTask(task, args, plans, cache, env, group) : Invalid(resolved.status());
  // Under MPI, rank 0 speaks for the job.
  if (group != nullptr && group->rank() != 0) return outcome.exit_code;
  record.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  record.exit_code = outcome.exit_code;
  if (outcome.exit_code == 0) {
    const std::string ranks =
        group != nullptr && group->size() > 1 ? " on " + std::to_string(group->size()) + " processes" : "";
    LogInfo("run-node " + task.key + " (" + task.node + "): " + NodeStatusName(outcome.status) + ranks);
  } else {
    record.reason = outcome.error.ToString();
    LogError(record.reason);
  }
  if (!task.key.empty()) {
    Status written = WriteTaskStatus(env, cache.dir(), task.key, record);
    if (!written.ok()) LogWarning("cannot write the task's status record: " + written.ToString());
  }
  return record.exit_code;
}

}  // namespace

int RunNodeCommand(const RunNodeArgs& args) {
  std::unique_ptr<MpiSession> mpi;
  if (MpiSession::LaunchedByMpirun()) {
    Result<std::unique_ptr<MpiSession>> started = MpiSession::Start();
    if (!started.ok()) {
      LogError(started.status().ToString());
      return 2;
    }
    mpi = std::move(started).value();
  }
  const ProcessGroup* group = mpi ? mpi->world() : nullptr;
  Env* env = Env::Default();
  Cache cache(CacheDir(args.cache_dir), &TheRegistry(), env);
  cache.Mark();  // as RunCommand: a failed store reports an unwritable cache
  // Held to the end: no `cache gc` removes what this process uses (cache_leases.h). None on a cache
  // this user cannot write, where this user's gc cannot remove anything either.
  CacheLeases leases(cache.dir(), env);
  const Result<std::unique_ptr<KeyLock>> lease = leases.HoldForRun();
  Plans plans(env);
  Result<std::vector<std::string>> keys = KeysToRun(args, env);
  if (!keys.ok()) {
    LogError(keys.status().ToString());
    return 2;
  }
  if (keys->empty()) {
    TaskManifest named;
    named.pipeline = args.pipeline;
    named.run = args.run - 1;
    named.node = args.node;
    return RunOne(named, args, plans, cache, env, group);
  }
  // A bundle's nodes are independent (all were ready when submitted): one failing does not stop
  // the others.
  int exit_code = 0;
  for (const std::string& key : *keys) {
    Result<TaskManifest> manifest = ReadTaskManifest(env, cache.dir(), key);
    if (!manifest.ok() && (group == nullptr || group->rank() == 0)) {
      // Recorded under the key it was asked for, so the sweep learns why.
      TaskStatus record{2, manifest.status().ToString(), ThisHost(), SlurmTaskId(), 0};
      WriteTaskStatus(env, cache.dir(), key, record);
    }
    exit_code = std::max(exit_code, RunOne(manifest, args, plans, cache, env, group));
  }
  return exit_code;
}

}  // namespace seqflow::cli

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <algorithm>
#include <map>
#include <thread>

#include "engine/base/log.h"
#include "engine/cli/commands.h"
#include "engine/cli/task_manifest.h"
#include "engine/exec/executor.h"
#include "engine/exec/task_status.h"

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

// Line $SLURM_ARRAY_TASK_ID (from 0) of a list file the Slurm executor wrote.
Result<std::string> KeyFromList(Env* env, const std::string& list_file) {
  const char* index_text = std::getenv("SLURM_ARRAY_TASK_ID");
  if (index_text == nullptr) return Status::Invalid("--list needs SLURM_ARRAY_TASK_ID (set by sbatch --array)");
  char* end = nullptr;
  long index = std::strtol(index_text, &end, 10);
  if (*index_text == '\0' || *end != '\0' || index < 0)
    return Status::Invalid(std::string("SLURM_ARRAY_TASK_ID is not an index: '") + index_text + "'");
  SEQFLOW_ASSIGN_OR_RETURN(std::string text, env->ReadFile(list_file));
  size_t start = 0;
  for (long line = 0; line < index; ++line) {
    start = text.find('\n', start);
    if (start == std::string::npos) break;
    ++start;
  }
  size_t stop = start == std::string::npos ? start : text.find('\n', start);
  if (start == std::string::npos || start >= text.size() || stop == start)
    return Status::Invalid(list_file + " has no line " + std::to_string(index));
  return text.substr(start, stop - start);
}

// The node to run and the key it must have (empty when named by pipeline, run and node).
Result<TaskManifest> ResolveTask(const RunNodeArgs& args, Env* env, const std::string& cache_dir) {
  std::string key = args.key;
  if (!args.list_file.empty()) {
    SEQFLOW_ASSIGN_OR_RETURN(key, KeyFromList(env, args.list_file));
  }
  if (!key.empty()) return ReadTaskManifest(env, cache_dir, key);
  if (args.pipeline.path.empty() || args.node.empty())
    return Status::Invalid("name the node instance: a KEY, --list FILE, or --pipeline P --node N [--run R]");
  TaskManifest named;
  named.pipeline = args.pipeline;
  named.run = args.run - 1;
  named.node = args.node;
  return named;
}

// Plans the task's pipeline and runs its node (computed, or already cached). Sets task.key.
TaskOutcome RunTask(TaskManifest& task, const RunNodeArgs& args, Cache& cache, Env* env) {
  FileHasher hasher(env);
  Result<Pipeline> planned = LoadPipeline(task.pipeline, env, hasher);
  if (!planned.ok()) return Invalid(planned.status());
  Pipeline& pipeline = *planned;
  if (task.run < 0 || task.run >= static_cast<int>(pipeline.runs.size()))
    return Invalid(Status::Invalid("the pipeline has " + std::to_string(pipeline.runs.size()) +
                                   " runs; there is no run " + std::to_string(task.run + 1)));
  const Dag& dag = pipeline.runs[task.run].dag;
  const int index = dag.Find(task.node);
  if (index < 0) return Invalid(Status::Invalid("run " + std::to_string(task.run + 1) + " has no node '" + task.node + "'"));
  const DagNode& node = dag.nodes[index];
  if (!task.key.empty() && node.key != task.key)
    return Invalid(Status::Invalid("node '" + task.node + "' now has key " + node.key + ", not the task's " + task.key +
                                   ": its pipeline, parameters or data changed since it was submitted"));
  task.key = node.key;
  Dag sub = NodeWithInputs(dag, index);
  ArtifactMemo memo;
  ExecOptions options;
  options.threads = args.threads > 0 ? args.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  options.may_compute = [&node](const DagNode& candidate) {
    if (candidate.key == node.key) return Status::Ok();
    return Status::NotFound("not in the cache (key " + candidate.key + "): run-node computes only '" + node.name +
                            "' and loads its inputs");
  };
  RunResult result = Execute(sub, cache, memo, env, options);
  if (!result.ok()) return TaskOutcome{1, result.FirstError()};
  return TaskOutcome{0, Status::Ok(), result.nodes.back().status};
}

}  // namespace

int RunNodeCommand(const RunNodeArgs& args) {
  const auto start = std::chrono::steady_clock::now();
  Env* env = Env::Default();
  const std::string cache_dir = CacheDir(args.cache_dir);
  Cache cache(cache_dir, &TheRegistry(), env);
  TaskStatus record;
  record.host = ThisHost();
  record.job = SlurmTaskId();
  std::string key = args.key;
  Result<TaskManifest> task = ResolveTask(args, env, cache_dir);
  TaskOutcome outcome = task.ok() ? RunTask(*task, args, cache, env) : Invalid(task.status());
  if (task.ok()) key = task->key;
  record.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  record.exit_code = outcome.exit_code;
  if (outcome.exit_code == 0) {
    LogInfo("run-node " + key + " (" + task->node + "): " + NodeStatusName(outcome.status));
  } else {
    record.reason = outcome.error.ToString();
    LogError(record.reason);
  }
  if (!key.empty()) {
    Status written = WriteTaskStatus(env, cache_dir, key, record);
    if (!written.ok()) LogWarning("cannot write the task's status record: " + written.ToString());
  }
  return record.exit_code;
}

}  // namespace seqflow::cli

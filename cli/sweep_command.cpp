#include "cli/sweep_command.h"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <thread>

#include "cli/interrupt.h"
#include "cli/task_manifest.h"
#include "engine/base/log.h"
#include "engine/exec/process_executor.h"
#include "engine/exec/slurm_executor.h"
#include "engine/exec/sweep.h"

namespace seqflow::cli {
namespace {

std::string SweepId() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &utc);
  return std::string(stamp) + "-" + std::to_string(::getpid());
}

// Totals, then the waves still under way: "sweep: 120/1015 done, 0 failed | wave 37: 2 queued,
// 1 running, 3 done | wave 38: 4 queued".
std::string ProgressLine(const SweepProgress& p) {
  WaveCounts total;
  std::string active;
  for (size_t w = 0; w < p.waves.size(); ++w) {
    const WaveCounts& c = p.waves[w];
    total.queued += c.queued;
    total.running += c.running;
    total.done += c.done;
    total.failed += c.failed;
    if (c.queued + c.running == 0) continue;
    active += fmt::format(" | wave {}: {} queued, {} running, {} done", w + 1, c.queued, c.running, c.done);
  }
  std::string line =
      fmt::format("sweep: {}/{} done, {} queued, {} running", total.done, p.total, total.queued, total.running);
  if (total.failed > 0) line += fmt::format(", {} failed", total.failed);
  if (p.skipped > 0) line += fmt::format(", {} skipped", p.skipped);
  return line + active;
}

// A progress line at most every few seconds, and whenever a wave is submitted or the last task
// ends: readable in a CI log or a Slurm driver's output file.
std::function<void(const SweepProgress&)> ProgressPrinter() {
  auto last = std::make_shared<std::chrono::steady_clock::time_point>();
  auto waves = std::make_shared<size_t>(0);
  return [last, waves](const SweepProgress& p) {
    const auto now = std::chrono::steady_clock::now();
    int unfinished = 0;
    for (const WaveCounts& c : p.waves) unfinished += c.queued + c.running;
    if (p.waves.size() == *waves && unfinished > 0 && now - *last < std::chrono::seconds(5)) return;
    *last = now;
    *waves = p.waves.size();
    LogInfo(ProgressLine(p));
  };
}

// One manifest per instance to compute, so `seqflow run-node KEY` finds its node.
Status WriteManifests(const Pipeline& pipeline, const PipelineArgs& args, Cache& cache) {
  std::set<std::string> written;
  PipelineArgs absolute = args;
  absolute.path = std::filesystem::absolute(args.path).lexically_normal().string();
  for (size_t r = 0; r < pipeline.runs.size(); ++r)
    for (const DagNode& node : pipeline.runs[r].dag.nodes) {
      if (written.count(node.key) || cache.Contains(node.key)) continue;
      written.insert(node.key);
      SEQFLOW_RETURN_IF_ERROR(WriteTaskManifest(cache.env(), cache.dir(),
                                                TaskManifest{absolute, static_cast<int>(r), node.name, node.key}));
    }
  return Status::Ok();
}

Result<std::string> ThisBinary() {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return Status::Io("cannot find the seqflow binary (/proc/self/exe): " + ec.message());
  return self.string();
}

// The executor `--executor` names, for a sweep whose files live in `sweep_dir`.
Result<std::unique_ptr<TaskExecutor>> MakeExecutor(const RunArgs& args, const std::string& binary,
                                                   const std::string& cache_dir, const std::string& sweep_dir,
                                                   const std::string& id, Env* env) {
  const ExecutorArgs& exec = args.executor;
  if (exec.executor == "processes") {
    ProcessOptions processes;
    processes.seqflow_binary = binary;
    processes.cache_dir = cache_dir;
    processes.sweep_dir = sweep_dir;
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    processes.max_jobs = exec.max_jobs > 0 ? exec.max_jobs : cores;
    processes.checkpoint_seconds = args.checkpoint_seconds;
    return std::unique_ptr<TaskExecutor>(new ProcessExecutor(processes, env));
  }
  SlurmOptions slurm;
  slurm.seqflow_binary = binary;
  slurm.cache_dir = cache_dir;
  slurm.work_dir = std::filesystem::current_path().string();
  slurm.sweep_dir = sweep_dir;
  slurm.job_name = "seqflow-" + id;
  slurm.partition = exec.partition;
  slurm.max_jobs = exec.max_jobs;
  slurm.bundle = exec.bundle;
  slurm.sbatch_args = exec.sbatch_args;
  slurm.checkpoint_seconds = args.checkpoint_seconds;
  return std::unique_ptr<TaskExecutor>(new SlurmExecutor(slurm, env));
}

}  // namespace

Result<std::function<Status(const DagNode&)>> Sweep(const Pipeline& pipeline, const RunArgs& args, Cache& cache) {
  if (!args.force.empty())
    return Status::Invalid(
        "--force works with the local executor only; remove the entries (seqflow cache rm KIND) "
        "and sweep again");
  const ExecutorArgs& exec = args.executor;
  SEQFLOW_ASSIGN_OR_RETURN(const std::string binary, ThisBinary());
  const std::string cache_dir = std::filesystem::absolute(cache.dir()).lexically_normal().string();
  const std::string id = SweepId();
  const std::string sweep_dir = JoinPath(JoinPath(cache_dir, "sweeps"), id);
  Cache shared(cache_dir, &TheRegistry(), cache.env());
  SEQFLOW_RETURN_IF_ERROR(WriteManifests(pipeline, args.pipeline, shared));
  SEQFLOW_ASSIGN_OR_RETURN(std::unique_ptr<TaskExecutor> executor,
                           MakeExecutor(args, binary, cache_dir, sweep_dir, id, cache.env()));

  std::vector<const Dag*> dags;
  for (const PlannedRun& run : pipeline.runs) dags.push_back(&run.dag);
  SweepOptions options;
  options.retries = exec.retries;
  options.poll_seconds = exec.poll_seconds;
  options.task_threads = exec.task_threads;
  options.task_processes = exec.task_processes;
  // Children on this host share its page cache: a finished child's entry is visible at once.
  if (exec.executor == "processes") options.reread_seconds = 1;
  options.interrupted = InterruptGuard::flag();
  options.on_progress = ProgressPrinter();
  LogInfo("sweep " + id + ": tasks' logs in " + sweep_dir + "/logs");
  InterruptGuard guard;
  SEQFLOW_ASSIGN_OR_RETURN(SweepResult swept, RunSweep(dags, shared, *executor, options));
  LogInfo(fmt::format("sweep: {} computed by {} tasks in {} waves, {} cached, {} failed or skipped", swept.computed,
                      swept.submitted, swept.waves, swept.cached, swept.failed.size()));
  for (const auto& [key, why] : swept.failed)
    if (why.code() != StatusCode::kCancelled) LogError(why.message());
  return std::function<Status(const DagNode&)>([failed = std::move(swept.failed)](const DagNode& node) {
    auto found = failed.find(node.key);
    if (found != failed.end()) return found->second;
    return Status::NotFound("not in the cache after the sweep (its entry was removed or damaged meanwhile)");
  });
}

}  // namespace seqflow::cli

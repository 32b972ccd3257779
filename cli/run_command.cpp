#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <thread>

#include "cli/build_info.h"
#include "cli/commands.h"
#include "cli/interrupt.h"
#include "cli/invocation.h"
#include "cli/progress_display.h"
#include "cli/sweep_command.h"
#include "engine/base/log.h"
#include "engine/cache/cache_leases.h"
#include "engine/exec/executor.h"
#include "engine/record/plan_explain.h"
#include "engine/record/record_folder.h"
#include "engine/record/resolved_pipeline.h"
#include "engine/record/summary.h"

namespace seqflow::cli {
namespace {

int DefaultThreads(int requested) {
  if (requested > 0) return requested;
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

std::string RunPrefix(size_t run, size_t num_runs) {
  return num_runs > 1 ? fmt::format("[run {}/{}] ", run + 1, num_runs) : "";
}

// One stderr line per node start and finish (plain lines: readable in CI logs), and for long
// loops a progress line at most every few seconds per node; a finish line ends with how many of
// the invocation's nodes are done (`tally`, shared by its runs). Events arrive serialised.
std::function<void(const ExecEvent&)> ProgressPrinter(const std::string& prefix, std::shared_ptr<NodeTally> tally) {
  auto last_line = std::make_shared<std::map<std::string, std::chrono::steady_clock::time_point>>();
  return [prefix, last_line, tally](const ExecEvent& e) {
    auto now = std::chrono::steady_clock::now();
    if (e.type == ExecEvent::kProgress) {
      auto& last = (*last_line)[e.node];
      if (now - last < std::chrono::seconds(5)) return;
      last = now;
      const std::string note = e.note.empty() ? "" : "  " + e.note;
      LogInfo(e.total > 0 ? fmt::format("{}  ...    {} {}/{}{}", prefix, e.node, e.done, e.total, note)
                          : fmt::format("{}  ...    {} step {}{}", prefix, e.node, e.done, note));
    } else if (e.type == ExecEvent::kStart) {
      (*last_line)[e.node] = now;
      LogInfo(fmt::format("{}start  {}", prefix, e.node));
    } else if (e.type == ExecEvent::kFinish) {
      tally->Count(e.outcome->status);
      LogInfo(FinishLine(prefix, *e.outcome, tally.get()));
    }
  };
}

// The headline metrics of the evaluators (the kinds the record declares so), one line per
// evaluator in pipeline order, on stdout.
void PrintResults(const PipelineRecord& record) {
  for (const RunRecord& run : record.runs) {
    if (record.runs.size() > 1) std::printf("%s\n", SettingLabel(run.ablation).c_str());
    for (const GraphShape::Node& shape : run.graph.nodes) {
      auto found = run.nodes.find(shape.name);
      if (found == run.nodes.end()) continue;
      const NodeRecord& node = found->second;
      const RecordSpec& declared = record.Declared(node.kind);
      if (declared.role != NodeRole::kEvaluator || node.status == NodeStatus::kFailed ||
          node.status == NodeStatus::kSkipped)
        continue;
      std::string line = fmt::format("  {:<16}", shape.name);
      // A per-system evaluator (eval.compare) reports each headline metric as METRIC.SYSTEM.
      for (const std::string& name : declared.headline)
        for (const auto& [metric, value] : node.metrics)
          if (metric == name || (declared.per_system && metric.starts_with(name + ".")))
            line += fmt::format(" {}={:.4f}", metric, value);
      std::printf("%s\n", line.c_str());
    }
  }
  std::fflush(stdout);
}

// Where this invocation's record goes: --out, checked before anything runs so that a long run
// does not end in a refusal, or a new folder under the records root.
struct RecordPlace {
  std::string dir;
  std::string latest_link;  // <root>/<pipeline>/latest when dir is a new folder there, else ""
  bool replace = false;     // an earlier record in dir goes
};

Result<RecordPlace> PlaceRecord(const RunArgs& args, const std::string& pipeline, const std::string& started,
                                Env* env) {
  if (!args.out_dir.empty()) {
    SEQFLOW_RETURN_IF_ERROR(CheckRecordFolder(args.out_dir, args.replace_out, env));
    return RecordPlace{args.out_dir, "", args.replace_out};
  }
  if (args.replace_out) return Status::Invalid("--replace goes with --out: without it each run's record is new");
  const std::string folder = JoinPath(RecordsRoot(args.records_root), pipeline);
  const std::string name = RecordFolderName(started, std::random_device{}());
  return RecordPlace{JoinPath(folder, name), JoinPath(folder, kLatestRecord), false};
}

// The earlier record that --replace lets go is removed only now, when the new one is ready.
Status WriteRecord(const RecordPlace& place, const PipelineRecord& record, const std::vector<RunResult>& results,
                   const std::vector<std::string>& resolved, Env* env) {
  if (place.replace) SEQFLOW_RETURN_IF_ERROR(ClearRecordFolder(place.dir, env));
  SEQFLOW_RETURN_IF_ERROR(WriteRunRecord(place.dir, record, results, resolved, env));
  if (!place.latest_link.empty()) SEQFLOW_RETURN_IF_ERROR(env->PointLink(place.latest_link, BaseName(place.dir)));
  LogInfo("record: " + place.dir);
  return Status::Ok();
}

// What Ctrl-C stopped and what a rerun takes up: "interrupted in run 2 of 4: 5 nodes done (in the
// cache), stopped: em, crf (a rerun resumes them from their last checkpoint), 3 not started; no
// record written. Run the same command to go on."
std::string InterruptedText(const RunResult& result, size_t run, size_t runs) {
  size_t done = 0, not_started = 0;
  std::string stopped;
  for (const NodeOutcome& node : result.nodes) {
    if (node.status == NodeStatus::kComputed || node.status == NodeStatus::kCached) ++done;
    if (node.status == NodeStatus::kSkipped) ++not_started;
    if (node.status == NodeStatus::kFailed) stopped += (stopped.empty() ? "" : ", ") + node.name;
  }
  return fmt::format("interrupted{}: {} nodes done (in the cache), {}{} not started; no record written. Run the "
                     "same command to go on.",
                     runs > 1 ? fmt::format(" in run {} of {}", run + 1, runs) : "", done,
                     stopped.empty() ? "" : "stopped: " + stopped +
                                                " (an iterative node resumes from its last checkpoint), ",
                     not_started);
}

}  // namespace

int RunCommand(const RunArgs& args) {
  auto start = std::chrono::steady_clock::now();
  Env* env = Env::Default();
  FileHasher hasher(env);
  std::optional<Pipeline> pipeline = LoadPipelineOrLog(args.pipeline, env, hasher, args.force);
  if (!pipeline) return 2;
  Cache cache(CacheDir(args.cache_dir), &TheRegistry(), env);
  // A cache that cannot be written (a shared, archived one) is served as it is: its tag is its
  // owner's business, and a failed store says all there is to say about it.
  cache.Mark();
  // Held to the end: no `cache gc` removes what this process uses (cache_leases.h). None on a cache
  // this user cannot write, where this user's gc cannot remove anything either.
  CacheLeases leases(cache.dir(), env);
  const Result<std::unique_ptr<KeyLock>> lease = leases.HoldForRun();
  std::function<Status(const DagNode&)> may_compute;
  if (args.executor.executor != "local") {
    Result<std::function<Status(const DagNode&)>> swept = Sweep(*pipeline, args, cache);
    if (!swept.ok()) {
      LogError(swept.status().ToString());
      const StatusCode code = swept.status().code();
      return code == StatusCode::kInvalid ? 2 : code == StatusCode::kCancelled ? 130 : 1;
    }
    may_compute = std::move(swept).value();
  }
  std::vector<const Dag*> dags;
  for (const PlannedRun& run : pipeline->runs) dags.push_back(&run.dag);
  ArtifactMemo memo(dags);  // holds an artifact only while a run still to finish uses it
  PipelineRecord record;
  record.invocation = StartInvocation(args.command_line, args.pipeline.sets, args.pipeline.path);
  const Result<RecordPlace> place = PlaceRecord(args, pipeline->name, record.invocation.started, env);
  if (!place.ok()) {
    LogError(place.status().ToString());
    return 2;
  }
  std::vector<RunResult> results;  // results[i] holds the attachments of record.runs[i]
  std::vector<std::string> resolved;  // resolved[i]: the pipeline as record.runs[i] ran it
  record.pipeline = pipeline->name;
  record.build = BuildDescription();
  if (pipeline->repeated) record.repeat_axis = kRepeatAxis;
  bool ok = true;
  CacheWarnings cache_warnings;  // a failing cache is reported once per cause, not per node or run
  // One budget for every run of the invocation (runs execute one after another).
  const int64_t budget_mb = args.memory_mb < 0 ? PhysicalMemoryMb() : args.memory_mb;
  std::optional<MemoryBudget> budget;
  if (budget_mb > 0) budget.emplace(budget_mb);
  // Live lines only for a person watching; TERM=dumb terminals cannot move the cursor.
  const char* term = std::getenv("TERM");
  auto tally = std::make_shared<NodeTally>();
  for (const PlannedRun& run : pipeline->runs) tally->total += static_cast<int64_t>(run.dag.nodes.size());
  std::unique_ptr<TtyProgress> live;
  if (::isatty(STDERR_FILENO) && term != nullptr && std::string_view(term) != "dumb")
    live = std::make_unique<TtyProgress>(stderr, tally->total);
  InterruptGuard interrupt;  // Ctrl-C cancels the running nodes instead of killing them mid-write
  for (size_t i = 0; i < pipeline->runs.size(); ++i) {
    const PlannedRun& run = pipeline->runs[i];
    ExecOptions options;
    options.interrupted = InterruptGuard::flag();
    options.threads = DefaultThreads(args.threads);
    options.force = args.force;
    options.may_compute = may_compute;
    options.checkpoint_seconds = args.checkpoint_seconds;
    options.cache_warnings = &cache_warnings;
    options.memory_budget = budget ? &*budget : nullptr;
    std::string prefix = RunPrefix(i, pipeline->runs.size());
    options.on_event = live ? live->Handler(prefix) : ProgressPrinter(prefix, tally);
    RunResult result = Execute(run.dag, cache, memo, env, options);
    if (InterruptGuard::flag()->load()) {
      live.reset();
      LogError(InterruptedText(result, i, pipeline->runs.size()));
      return 130;
    }
    ok = ok && result.ok();
    Status saved = cache.StoreRunHistory(RunId(pipeline->name, run.variant.assignment), HistoryOf(run.dag));
    if (!saved.ok()) cache_warnings.HistoryFailed(saved);
    AppendRun(record, run.dag, result, run.variant.assignment, run.variant.axes);
    resolved.push_back(ResolvedPipelineYaml(pipeline->name, run.dag));
    results.push_back(std::move(result));
  }
  live.reset();
  if (cache_warnings.repeats() > 0)
    LogInfo(fmt::format("{} more cache reads or writes failed for a cause reported above", cache_warnings.repeats()));
  record.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  record.invocation.finished = UtcNow();
  if (Status written = WriteRecord(*place, record, results, resolved, env); !written.ok()) {
    LogError(written.ToString());
    return 1;
  }
  PrintResults(record);
  if (!ok) {
    for (const RunResult& result : results)
      if (!result.ok()) LogError(result.FirstError().ToString());
    return 1;
  }
  return 0;
}

}  // namespace seqflow::cli

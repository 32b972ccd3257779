#include "engine/exec/sweep.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <set>
#include <thread>

#include "engine/base/log.h"
#include "engine/exec/task_status.h"

namespace seqflow {
namespace {

using Clock = std::chrono::steady_clock;

// Consecutive failed polls tolerated (a controller restarting, a busy scheduler) before the
// sweep gives up.
constexpr int kPollFailuresTolerated = 5;

enum class State { kCached, kWaiting, kInFlight, kEnding, kDone, kFailed, kSkipped };

struct Instance {
  std::string key;
  const DagNode* node = nullptr;  // its first occurrence
  std::string label;
  std::vector<int> inputs;  // distinct instance indices, all smaller than this one's
  State state = State::kWaiting;
  int attempts = 0;
  int wave = -1;
  std::string handle;
  Clock::time_point ended_at;
  Status error;
};

class SweepDriver {
 public:
  SweepDriver(const std::vector<const Dag*>& runs, Cache& cache, TaskExecutor& executor, const SweepOptions& options)
      : cache_(cache), executor_(executor), options_(options) {
    Index(runs);
  }

  Result<SweepResult> Run() {
    int poll_failures = 0;
    for (;;) {
      if (Interrupted()) return Cancel();
      SkipDescendantsOfFailures();
      SEQFLOW_RETURN_IF_ERROR(SubmitReady());
      Report();
      if (in_flight_ == 0) break;
      Pause();
      if (Interrupted()) return Cancel();
      Result<std::map<std::string, TaskState>> states = executor_.Poll();
      if (!states.ok()) {
        if (++poll_failures > kPollFailuresTolerated) return states.status();
        LogWarning("cannot poll the executor (" + states.status().ToString() + "); retrying");
        continue;
      }
      poll_failures = 0;
      Track(*states);
      ConcludeEnded();
    }
    return Summary();
  }

 private:
  void Index(const std::vector<const Dag*>& runs) {
    std::map<std::string, int> by_key;
    for (size_t r = 0; r < runs.size(); ++r) {
      const Dag& dag = *runs[r];
      for (const DagNode& node : dag.nodes) {
        if (by_key.count(node.key)) continue;
        Instance inst;
        inst.key = node.key;
        inst.node = &node;
        inst.label = "node '" + node.name + "' (" + node.kind->name + ")" +
                     (runs.size() > 1 ? " of run " + std::to_string(r + 1) + "/" + std::to_string(runs.size()) : "");
        for (const DagInput& input : node.inputs)
          for (int source : input.sources) {
            int index = by_key.at(dag.nodes[source].key);
            if (std::find(inst.inputs.begin(), inst.inputs.end(), index) == inst.inputs.end())
              inst.inputs.push_back(index);
          }
        inst.state = cache_.Contains(node.key) ? State::kCached : State::kWaiting;
        if (inst.state == State::kWaiting) ++total_;
        by_key.emplace(node.key, static_cast<int>(instances_.size()));
        instances_.push_back(std::move(inst));
      }
    }
  }

  bool Interrupted() const { return options_.interrupted != nullptr && options_.interrupted->load(); }

  Result<SweepResult> Cancel() {
    Status cancelled = executor_.Cancel();
    std::string what = std::to_string(in_flight_) + " submitted task" + (in_flight_ == 1 ? "" : "s");
    if (!cancelled.ok())
      return Status::Cancelled("interrupted; cancelling " + what + " failed: " + cancelled.ToString());
    return Status::Cancelled("interrupted: " + what + " cancelled; what was published stays in the cache");
  }

  // Instance indices are topological (an input is indexed before its consumers), so one pass
  // carries a failure all the way down.
  void SkipDescendantsOfFailures() {
    for (Instance& inst : instances_) {
      if (inst.state != State::kWaiting) continue;
      for (int input : inst.inputs) {
        const Instance& in = instances_[input];
        if (in.state != State::kFailed && in.state != State::kSkipped) continue;
        inst.state = State::kSkipped;
        inst.error = Status::Cancelled("skipped: its input " + in.label + " failed");
        break;
      }
    }
  }

  bool Ready(const Instance& inst) const {
    if (inst.state != State::kWaiting) return false;
    for (int input : inst.inputs) {
      State s = instances_[input].state;
      if (s != State::kCached && s != State::kDone) return false;
    }
    return true;
  }

  Status SubmitReady() {
    std::vector<int> ready;
    std::vector<Task> tasks;
    for (size_t i = 0; i < instances_.size(); ++i) {
      Instance& inst = instances_[i];
      if (!Ready(inst)) continue;
      if (cache_.Contains(inst.key) && Published(inst.key)) {  // by another driver meanwhile
        inst.state = State::kDone;
        ++result_.cached;
        continue;
      }
      // The previous attempt's record must not be mistaken for this one's.
      SEQFLOW_RETURN_IF_ERROR(RemoveTaskStatus(cache_.env(), cache_.dir(), inst.key));
      const ResourceSpec& needs = inst.node->kind->resources;
      tasks.push_back(Task{inst.key, inst.label, needs.parallel ? options_.task_threads : 1, needs.memory_mb,
                           needs.data_parallel ? options_.task_processes : 1});
      ready.push_back(static_cast<int>(i));
    }
    if (ready.empty()) return Status::Ok();
    SEQFLOW_ASSIGN_OR_RETURN(std::vector<std::string> handles, executor_.Submit(tasks));
    if (handles.size() != ready.size())
      return Status::Internal("the executor returned a handle count unlike the tasks'");
    const int wave = static_cast<int>(waves_.size());
    waves_.push_back({});
    for (size_t t = 0; t < ready.size(); ++t) {
      Instance& inst = instances_[ready[t]];
      inst.state = State::kInFlight;
      inst.handle = handles[t];
      inst.wave = wave;
      ++inst.attempts;
      by_handle_[handles[t]].push_back(ready[t]);
      queued_.insert(handles[t]);
    }
    in_flight_ += static_cast<int>(ready.size());
    result_.submitted += static_cast<int>(ready.size());
    return Status::Ok();
  }

  void Pause() const {
    const Clock::time_point until = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                       std::chrono::duration<double>(options_.poll_seconds));
    for (auto now = Clock::now(); now < until && !Interrupted(); now = Clock::now())
      std::this_thread::sleep_for(std::min<Clock::duration>(until - now, std::chrono::milliseconds(50)));
  }

  void Track(const std::map<std::string, TaskState>& states) {
    for (const auto& [handle, state] : states) {
      auto found = by_handle_.find(handle);
      if (found == by_handle_.end()) continue;
      if (state == TaskState::kQueued) continue;
      queued_.erase(handle);
      if (state != TaskState::kEnded) continue;
      for (int index : found->second) {
        instances_[index].state = State::kEnding;
        instances_[index].ended_at = Clock::now();
      }
      by_handle_.erase(found);
    }
  }

  // Success is the entry, read back and checksummed; the status record only says why a task
  // failed. (Another driver on the same cache may have removed this task's record when it
  // resubmitted the key; the entry still tells.)
  void ConcludeEnded() {
    for (Instance& inst : instances_) {
      if (inst.state != State::kEnding) continue;
      if (Published(inst.key)) {
        inst.state = State::kDone;
        --in_flight_;
        ++result_.computed;
        continue;
      }
      Result<std::optional<TaskStatus>> record = ReadTaskStatus(cache_.env(), cache_.dir(), inst.key);
      const bool has_record = record.ok() && record->has_value();
      const bool failed = has_record && (*record)->exit_code != 0;
      if (!failed && Clock::now() - inst.ended_at < std::chrono::duration<double>(options_.reread_seconds)) continue;
      std::string why;
      if (failed)
        why = (*record)->reason;
      else if (has_record)
        why = "its status record says it finished, but its entry does not load";
      else
        why = "it ended without a status record (killed, cancelled, out of memory, or its node was lost)";
      Fail(inst, why);
    }
  }

  bool Published(const std::string& key) const {
    Result<std::optional<CacheEntry>> entry = cache_.Load(key);
    return entry.ok() && entry->has_value();
  }

  void Fail(Instance& inst, const std::string& why) {
    --in_flight_;
    std::string diagnostics = executor_.Diagnostics(inst.handle);
    std::string message = inst.label + " failed in task " + inst.handle + ": " + why;
    if (!diagnostics.empty()) message += "\n" + diagnostics;
    if (inst.attempts <= options_.retries) {
      LogWarning(message + "\nresubmitting (attempt " + std::to_string(inst.attempts + 1) + " of " +
                 std::to_string(options_.retries + 1) + ")");
      inst.state = State::kWaiting;
      ++waves_[inst.wave].failed;  // counted in its wave; the retry counts in the next one's
      return;
    }
    inst.state = State::kFailed;
    inst.error = Status::Internal(message);
  }

  void Report() {
    SweepProgress progress;
    progress.total = total_;
    progress.waves.assign(waves_.size(), WaveCounts{});
    for (size_t w = 0; w < waves_.size(); ++w) progress.waves[w].failed = waves_[w].failed;
    for (const Instance& inst : instances_) {
      if (inst.wave < 0) continue;  // cached, or waiting for inputs
      WaveCounts& counts = progress.waves[inst.wave];
      switch (inst.state) {
        case State::kInFlight:
          (queued_.count(inst.handle) ? counts.queued : counts.running)++;
          break;
        case State::kEnding:
          counts.running++;
          break;
        case State::kDone:
          counts.done++;
          break;
        case State::kFailed:
          counts.failed++;
          break;
        default:
          break;
      }
    }
    for (const Instance& inst : instances_) progress.skipped += inst.state == State::kSkipped;
    if (progress.waves == last_.waves && progress.skipped == last_.skipped) return;
    last_ = progress;
    if (options_.on_progress) options_.on_progress(progress);
  }

  SweepResult Summary() {
    for (const Instance& inst : instances_) {
      if (inst.state == State::kCached) ++result_.cached;
      if (inst.state == State::kFailed || inst.state == State::kSkipped) result_.failed.emplace(inst.key, inst.error);
    }
    result_.waves = static_cast<int>(waves_.size());
    return result_;
  }

  Cache& cache_;
  TaskExecutor& executor_;
  const SweepOptions& options_;
  std::vector<Instance> instances_;
  std::vector<WaveCounts> waves_;  // only `failed` is kept here: attempts that failed and were retried
  std::map<std::string, std::vector<int>> by_handle_;  // in-flight handle -> its instances
  std::set<std::string> queued_;                       // handles not yet seen running
  int in_flight_ = 0;
  int total_ = 0;
  SweepResult result_;
  SweepProgress last_;
};

}  // namespace

Result<SweepResult> RunSweep(const std::vector<const Dag*>& runs, Cache& cache, TaskExecutor& executor,
                             const SweepOptions& options) {
  SweepDriver driver(runs, cache, executor, options);
  return driver.Run();
}

}  // namespace seqflow

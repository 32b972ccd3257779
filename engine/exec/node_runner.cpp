#include "engine/exec/node_runner.h"

#include <chrono>
#include <cmath>
#include <exception>
#include <thread>

#include <tbb/task.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <tbb/task_arena.h>

#include "engine/base/log.h"
#include "engine/exec/exec_context.h"

// Under AddressSanitizer the sanitizer's allocator serves every malloc: glibc's arenas are not in
// use, and malloc_trim walking them from several threads at once crashed (SEGV in mtrim).
#if defined(__SANITIZE_ADDRESS__)
#define SEQFLOW_SANITIZER_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SEQFLOW_SANITIZER_ALLOCATOR 1
#endif
#endif
#ifndef SEQFLOW_SANITIZER_ALLOCATOR
#define SEQFLOW_SANITIZER_ALLOCATOR 0
#endif

namespace seqflow {
namespace {

using Clock = std::chrono::steady_clock;

// Concurrent stores: enough for fsyncs to share journal commits, few enough not to thrash a disk.
constexpr int kWriters = 4;

double SecondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

std::string NodeLabel(const DagNode& node) { return "node '" + node.name + "' (" + node.kind->name + ")"; }

bool Interrupted(const RunState& run) {
  return run.options.interrupted != nullptr && run.options.interrupted->load(std::memory_order_relaxed);
}

// A failed node cancels the rest of the run, unless it was only refused computation here
// (ExecOptions::may_compute): nothing else computes then, and the others still load.
void Fail(RunState& run, int index, const Status& status, bool cancel_run = true) {
  const DagNode& node = run.dag.nodes[index];
  NodeOutcome& out = run.outcomes[index];
  out.status = NodeStatus::kFailed;
  // NodeContext's own errors already begin with the node's name.
  bool named = status.message().starts_with("node '" + node.name + "'");
  out.error = named ? status : status.Annotate(NodeLabel(node));
  if (cancel_run) run.failed = true;
}

bool InputsSucceeded(const RunState& run, const DagNode& node) {
  for (const DagInput& input : node.inputs)
    for (int source : input.sources) {
      NodeStatus s = run.outcomes[source].status;
      if (s != NodeStatus::kComputed && s != NodeStatus::kCached) return false;
    }
  return true;
}

// An artifact this large is decoded only when a computing consumer asks for it (RunState::Input),
// so a rerun whose nodes are all cached decodes no model: a real pipeline's models and corpora are
// larger (conll2000_hmm's HMM: 0.8 MB). A smaller one (metrics, a tiny test's vocabulary) costs
// less to decode now than to read again later, and a loader failure then recomputes the node in
// this run instead of failing its consumer.
constexpr size_t kDeferredArtifactBytes = size_t{64} << 10;

// A damaged or mismatched entry is never used: warn and let the caller recompute.
std::optional<CacheEntry> LoadFromCache(const RunState& run, const DagNode& node) {
  Result<std::optional<CacheEntry>> loaded = run.cache.Load(node.key, kDeferredArtifactBytes);
  if (!loaded.ok()) {
    run.warnings.LoadFailed(NodeLabel(node), loaded.status());
    return std::nullopt;
  }
  std::optional<CacheEntry>& entry = *loaded;
  if (entry && (entry->kind != node.kind->name || !node.kind->Outputs(entry->artifact_type))) {
    LogWarning(NodeLabel(node) + ": cache entry " + node.key + " holds a " + entry->artifact_type +
               " of kind " + entry->kind + "; recomputing");
    return std::nullopt;
  }
  return std::move(entry);
}

// A run killed between publishing an entry and removing its checkpoint left the checkpoint
// behind; nothing will resume from it, so the first run that loads the entry removes it.
void RemoveStaleCheckpoint(RunState& run, const DagNode& node) {
  const ProcessGroup* processes = run.options.processes;
  if (processes != nullptr && processes->rank() != 0) return;
  Status removed = run.checkpoints.Remove(node.key);
  if (!removed.ok()) LogWarning(NodeLabel(node) + ": cannot remove its stale checkpoint: " + removed.ToString());
}

bool TryReuse(RunState& run, int index) {
  const DagNode& node = run.dag.nodes[index];
  std::optional<CacheEntry> entry = run.memo.FindEntry(node.key);
  if (!entry) {
    entry = LoadFromCache(run, node);
    if (!entry) return false;
    run.memo.PutEntry(node.key, *entry);
    RemoveStaleCheckpoint(run, node);
  }
  NodeOutcome& out = run.outcomes[index];
  out.status = NodeStatus::kCached;
  out.metrics = std::move(entry->metrics);
  out.attachments = std::move(entry->attachments);
  run.artifacts[index] = std::move(entry->artifact);
  return true;
}

// Calls the node body, turning whatever it throws into a Status.
Status Invoke(const DagNode& node, ExecContext& context, ArtifactPtr* artifact) {
  if (!node.kind->run) return Status::Internal("kind has no body");
  try {
    *artifact = node.kind->run(context);
    return Status::Ok();
  } catch (const StatusError& e) {
    return e.status();
  } catch (const std::exception& e) {
    return Status::Internal(std::string("exception: ") + e.what());
  } catch (...) {
    return Status::Internal("unknown exception");
  }
}

// Checks what the body returned and folds a Metrics output into the reported metrics; a
// non-finite figure would poison every report and comparison built on it, so it fails the node.
Status Validate(const KindSpec& kind, const ArtifactPtr& artifact, std::map<std::string, double>& metrics) {
  if (artifact == nullptr) return Status::Internal("returned no artifact");
  if (!kind.Outputs(artifact->type()))
    return Status::Internal("returned a " + std::string(artifact->type()) + ", its kind declares " + kind.output_type);
  if (auto m = std::dynamic_pointer_cast<const Metrics>(artifact))
    for (const auto& [name, value] : m->values) metrics.insert_or_assign(name, value);
  for (const auto& [name, value] : metrics)
    if (!std::isfinite(value))
      return Status::Numerical("metric '" + name + "' is " + (std::isnan(value) ? "NaN" : "infinite"));
  return Status::Ok();
}

// The key's lock, or null when the node was served meanwhile by the worker that held it (a
// forced node never is: it waits for the lock and recomputes). A lock that cannot be taken at
// all (a read-only cache) does not stop the node: the lock only saves duplicate work.
Result<std::unique_ptr<KeyLock>> LockOrReuse(RunState& run, int index, bool* reused) {
  const DagNode& node = run.dag.nodes[index];
  *reused = false;
  std::chrono::duration<double> pause(0.02);
  bool announced = false;
  for (;;) {
    LockHolder holder;
    Result<std::unique_ptr<KeyLock>> lock = run.locks.TryAcquire(node.key, &holder);
    if (!lock.ok()) {
      run.warnings.LockFailed(NodeLabel(node), lock.status());
      return std::unique_ptr<KeyLock>();
    }
    if (*lock != nullptr) {
      // The holder may have published between our miss and our lock.
      if (!run.forced[index] && TryReuse(run, index)) *reused = true;
      return lock;
    }
    if (!announced)
      LogInfo(NodeLabel(node) + ": " + holder.host + " pid " + std::to_string(holder.pid) +
              " is computing it; waiting for its entry");
    announced = true;
    if (run.failed || Interrupted(run)) return Status::Cancelled("cancelled while waiting for another worker's entry");
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::duration<double>(1.0));
    if (!run.forced[index] && TryReuse(run, index)) {
      *reused = true;
      return std::unique_ptr<KeyLock>();
    }
  }
}

// A node that failed numerically (a NaN, a diverged iteration) leaves no state a rerun would
// continue from: neither its final state nor its checkpoint. A cancelled one keeps its checkpoint,
// to resume.
void DiscardState(RunState& run, const DagNode& node) {
  const ProcessGroup* processes = run.options.processes;
  if (processes != nullptr && processes->rank() != 0) return;
  Status removed = node.family_key.empty() ? Status::Ok() : run.final_states.Remove(node.family_key, node.key);
  if (removed.ok()) removed = run.checkpoints.Remove(node.key);
  if (!removed.ok()) LogWarning(NodeLabel(node) + ": cannot remove the state it failed in: " + removed.ToString());
}

void Compute(RunState& run, int index, Clock::time_point start, std::unique_ptr<KeyLock> lock) {
  const DagNode& node = run.dag.nodes[index];
  ExecContext context(run, index);
  ArtifactPtr artifact;
  Status status = Invoke(node, context, &artifact);
  std::map<std::string, double> metrics = context.TakeMetrics();
  if (status.ok()) status = Validate(*node.kind, artifact, metrics);
  if (status.code() == StatusCode::kNumerical) DiscardState(run, node);
  if (!status.ok()) return Fail(run, index, status);

  NodeOutcome& out = run.outcomes[index];
  out.status = NodeStatus::kComputed;
  out.metrics = std::move(metrics);
  out.attachments = context.TakeAttachments();
  CacheEntry entry{.kind = node.kind->name,
                   .artifact = artifact,
                   .seconds = SecondsSince(start),
                   .metrics = out.metrics,
                   .attachments = out.attachments,
                   .artifact_type = {},
                   .key = {}};
  run.artifacts[index] = std::move(artifact);
  run.memo.PutEntry(node.key, entry);
  const ProcessGroup* processes = run.options.processes;
  if (processes == nullptr || processes->rank() == 0)
    run.publisher.Submit(node.key, std::move(entry), NodeLabel(node), std::move(lock));
}

// Node `index` is done. An input it was the last reader of, and its own result if nothing in this
// run reads it, are let go (the memo keeps what later runs need), before the finish event, so an
// observer of the event sees the memory already released.
void Finish(RunState& run, int index) {
  for (int source : SourcesOf(run.dag.nodes[index]))
    if (run.unread[source].fetch_sub(1, std::memory_order_acq_rel) == 1) run.artifacts[source].reset();
  if (run.unread[index].load(std::memory_order_acquire) == 0) run.artifacts[index].reset();
  run.memo.Release(run.dag, index);
#if defined(__GLIBC__) && !SEQFLOW_SANITIZER_ALLOCATOR
  // glibc keeps what a node freed in its arenas (one per thread) and reuses it only there: the
  // process's resident memory would stay at its highest, and the next large node would add to it
  // (CoNLL-2000 HySOL: 2.1 GB resident where 1.6 GB were live, bench/RESULTS.md).
  malloc_trim(0);
#endif
  run.Emit(ExecEvent{ExecEvent::kFinish, &run.outcomes[index], run.dag.nodes[index].name});
}

// The node's share of the memory budget, held from construction (which waits for it) to
// destruction. A node that declares more than the whole budget holds all of it: it runs alone.
class MemoryShare {
 public:
  MemoryShare(MemoryBudget* budget, const DagNode& node) : budget_(budget) {
    if (budget_ == nullptr) return;
    const int64_t declared = node.kind->resources.memory_mb;
    mb_ = budget_->Share(declared);
    if (declared > budget_->budget_mb())
      LogInfo(NodeLabel(node) + " declares " + std::to_string(declared) + " MB, more than the memory budget of " +
              std::to_string(budget_->budget_mb()) + " MB: it runs alone");
    if (budget_->TryAcquire(mb_)) return;
    // Suspended, not blocked: the task's thread computes other nodes (or the holders' parallel
    // work) until a Release grants the share and resumes the task.
    tbb::task::suspend(
        [this](tbb::task::suspend_point tag) { budget_->Acquire(mb_, [tag] { tbb::task::resume(tag); }); });
  }
  ~MemoryShare() {
    if (budget_ != nullptr) budget_->Release(mb_);
  }
  MemoryShare(const MemoryShare&) = delete;
  MemoryShare& operator=(const MemoryShare&) = delete;

 private:
  MemoryBudget* budget_;
  int64_t mb_ = 0;
};

// A node in neither the memo nor the cache: computed here if the options allow it and no other
// worker is computing it. `start` is reset once the node holds its memory share: the wait is not
// the node's time.
void ComputeHere(RunState& run, int index, Clock::time_point& start) {
  const DagNode& node = run.dag.nodes[index];
  if (run.options.may_compute) {
    Status allowed = run.options.may_compute(node);
    if (!allowed.ok()) return Fail(run, index, allowed, /*cancel_run=*/false);
  }
  const ProcessGroup* processes = run.options.processes;
  const bool one_process = processes == nullptr || processes->size() == 1;
  bool reused = false;
  Result<std::unique_ptr<KeyLock>> lock =
      one_process ? LockOrReuse(run, index, &reused) : Result<std::unique_ptr<KeyLock>>(std::unique_ptr<KeyLock>());
  if (!lock.ok()) return Fail(run, index, lock.status());
  if (reused) return;
  const MemoryShare share(run.options.memory_budget, node);
  start = Clock::now();
  // Announced only when the body runs: a cached node gets its one finish line.
  run.Emit(ExecEvent{ExecEvent::kStart, nullptr, node.name});
  // Isolated: while this node waits for its own parallel work, its thread never picks up another
  // node's task, which could wait for the memory this one holds (a deadlock on one thread).
  tbb::this_task_arena::isolate([&] { Compute(run, index, start, std::move(lock).value()); });
}

}  // namespace

RunState::RunState(const Dag& d, Cache& c, ArtifactMemo& m, Env* e, const ExecOptions& o)
    : dag(d),
      cache(c),
      memo(m),
      env(e),
      options(o),
      forced(d.nodes.size(), 0),
      outcomes(d.nodes.size()),
      artifacts(d.nodes.size()),
      artifact_mu(std::make_unique<std::mutex[]>(d.nodes.size())),
      unread(d.nodes.size()),
      warnings(o.cache_warnings != nullptr ? *o.cache_warnings : own_warnings),
      locks(c.dir(), e),
      checkpoints(c.dir(), e),
      final_states(c.dir(), e),
      publisher(c, kWriters, warnings, &checkpoints) {
  for (size_t i = 0; i < dag.nodes.size(); ++i) {
    const DagNode& node = dag.nodes[i];
    outcomes[i].name = node.name;
    outcomes[i].kind = node.kind->name;
    outcomes[i].key = node.key;
    // Topological order: every source's flag is final before its consumers are visited.
    forced[i] = options.force.count(node.name) > 0;
    for (const DagInput& input : node.inputs)
      for (int source : input.sources) forced[i] = forced[i] || forced[source];
    for (int source : SourcesOf(node)) ++unread[source];
  }
}

void RunState::Emit(const ExecEvent& event) {
  if (!options.on_event) return;
  std::lock_guard<std::mutex> lock(event_mu);
  try {
    options.on_event(event);
  } catch (const std::exception& e) {
    LogWarning(std::string("progress display failed: ") + e.what());
  }
}

ArtifactPtr RunState::Input(int source) {
  std::lock_guard<std::mutex> lock(artifact_mu[source]);
  ArtifactPtr& artifact = artifacts[source];
  if (artifact != nullptr) return artifact;
  const DagNode& node = dag.nodes[source];
  artifact = memo.Find(node.key);
  if (artifact != nullptr) return artifact;
  Result<std::optional<CacheEntry>> loaded = cache.Load(node.key);
  Status status = !loaded.ok() ? loaded.status()
                  : !*loaded   ? Status::NotFound("cache entry " + node.key + " is gone")
                               : Status::Ok();
  if (!status.ok()) {
    // Its frame and checksum were sound when the node was reused; a damaged piece or a vanished
    // file is found only now. Removed, the entry is recomputed by the next run.
    if (status.code() == StatusCode::kCorruption && !cache.Remove(node.key).ok())
      LogWarning(NodeLabel(node) + ": cannot remove its damaged cache entry " + node.key);
    throw StatusError(status.Annotate("input from " + NodeLabel(node) + " cannot be loaded; run again to recompute it"));
  }
  artifact = std::move((*loaded)->artifact);
  memo.PutArtifact(node.key, artifact);
  return artifact;
}

void RunNode(RunState& run, int index) {
  NodeOutcome& out = run.outcomes[index];
  const DagNode& node = run.dag.nodes[index];
  if (run.failed || Interrupted(run) || !InputsSucceeded(run, node)) {
    out.status = NodeStatus::kSkipped;
    return Finish(run, index);
  }
  Clock::time_point start = Clock::now();
  try {
    if (run.forced[index] || !TryReuse(run, index)) ComputeHere(run, index, start);
  } catch (const std::exception& e) {  // engine-side failure (e.g. out of memory), not the body's
    Fail(run, index, Status::Internal(std::string("executor: ") + e.what()));
  }
  out.seconds = SecondsSince(start);
  Finish(run, index);
}

}  // namespace seqflow

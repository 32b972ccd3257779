// Executor: runs a Dag on a tbb::flow::graph, one continue_node per DAG node and one make_edge
// per dependency (oneTBB's algorithm_depend pattern). A node runs when its inputs are ready;
// a node whose key is cached is loaded instead of run; independent branches run in parallel
// inside a task_arena of `threads` workers.
//
// Failure: an exception or StatusError from a node body becomes that node's Status (naming the
// node); nothing of a failed node is cached; nodes downstream of it are reported as skipped;
// the rest of the graph is cancelled. Artifacts already computed in this process are shared
// across runs through ArtifactMemo (ablation runs reuse their common prefix without reloading).
//
// Memory: a node's artifact is released by the run as soon as its last consumer in the run
// finished, and by the memo once no remaining run uses it (see artifact_memo.h).
//
// Two workers, one key: before computing, a node takes its key's lock (engine/cache/key_locks.h);
// while another worker (another run, process or machine on the same cache) holds it, the node
// waits for that worker's entry and loads it, so a shared cache computes each key once.
//
// Publishing: computed results are stored to the cache by background writers (a store's fsync
// costs more than a small node); Execute returns only after every store finished, and a key's
// lock is released once its entry is stored. A failed store is a warning, not a failed node:
// the result is right, only not reusable.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "engine/api/artifact.h"
#include "engine/api/registry.h"
#include "engine/base/process_group.h"
#include "engine/cache/cache.h"
#include "engine/exec/artifact_memo.h"
#include "engine/exec/cache_warnings.h"
#include "engine/exec/memory_budget.h"
#include "engine/graph/dag.h"

namespace seqflow {

enum class NodeStatus { kComputed, kCached, kFailed, kSkipped };
const char* NodeStatusName(NodeStatus s);  // "computed", "cached", "failed", "skipped"

struct NodeOutcome {
  std::string name;
  std::string kind;
  std::string key;
  NodeStatus status = NodeStatus::kSkipped;
  double seconds = 0;  // this run's wall time for the node (load time when cached)
  std::map<std::string, double> metrics;  // node-reported metrics plus a Metrics output's values
  std::vector<std::pair<std::string, std::string>> attachments;
  Status error;  // set when failed
};

struct RunResult {
  std::vector<NodeOutcome> nodes;  // in Dag order
  double seconds = 0;
  bool ok() const;
  Status FirstError() const;
};

// Node start/finish events for progress display. Called from worker threads, serialised.
struct ExecEvent {
  enum Type { kStart, kFinish, kProgress } type;
  const NodeOutcome* outcome = nullptr;  // kFinish
  std::string node;
  int64_t done = 0, total = 0;  // kProgress
  std::string note{};           // kProgress: what the loop is at (NodeContext::Progress)
};

struct ExecOptions {
  int threads = 2;
  std::set<std::string> force;  // node names recomputed even when cached (descendants follow)
  std::function<void(const ExecEvent&)> on_event;
  // When set, asked before a node that is in neither the memo nor the cache is computed here:
  // Ok lets it compute, any other Status fails the node with it. `seqflow run-node` computes
  // only its own node; a sweep's driver computes nothing (its executor did).
  std::function<Status(const DagNode&)> may_compute;
  // The processes computing this run together (MPI ranks of one `run-node`); every rank runs
  // every node, only rank 0 publishes, and none takes key locks (a rank waiting for a lock while
  // the others compute would leave them waiting for it).
  const ProcessGroup* processes = nullptr;
  // Seconds between two checkpoints of an iterative node (NodeContext::Checkpoint); 0 saves
  // after every iteration.
  double checkpoint_seconds = 30;
  // Shared by the Execute calls of one invocation, so a cache that cannot be written is reported
  // once per cause for all its runs (cache_warnings.h); null: each call reports on its own.
  CacheWarnings* cache_warnings = nullptr;
  // The memory the nodes computing at once may declare together (memory_budget.h), shared by the
  // Execute calls of one invocation; null: no budget. Only when nodes start depends on it.
  MemoryBudget* memory_budget = nullptr;
  // Set by the caller when the user interrupts (Ctrl-C): running nodes are cancelled as when a
  // node fails (their checkpoints stay, so a rerun resumes them), and no further node starts.
  const std::atomic<bool>* interrupted = nullptr;
};

// Node `index` of `dag` with its direct inputs as a Dag of their own (the node last), the inputs'
// own inputs dropped: what one task runs when its inputs come from the cache (run-node).
Dag NodeWithInputs(const Dag& dag, int index);

// Releases each node's uses of `memo` as the node finishes (ArtifactMemo::Release).
RunResult Execute(const Dag& dag, Cache& cache, ArtifactMemo& memo, Env* env, const ExecOptions& options);

}  // namespace seqflow

// Sweep: runs the node instances of every run of a pipeline through a TaskExecutor (a cluster),
// then leaves the run records to Execute, which finds everything in the cache (DESIGN §10).
//
//   - Instances are deduplicated by cache key across all runs; cached ones are never submitted.
//   - Waves: the instances whose inputs are all published go out together (one Submit); each
//     time tasks end, those they made ready go out as the next wave.
//   - A task succeeded when its entry loads from the cache (checksummed, never a bare stat); its
//     status record says why it failed. An entry or record not visible yet is re-read for
//     `reread_seconds` (a network filesystem's attribute cache may hide a fresh file), then the
//     task failed "without a status record" (killed, out of memory, lost node).
//   - An instance another driver published meanwhile is not submitted (counted as cached).
//   - A failed task is resubmitted up to `retries` times, then reported with its node, the
//     executor's diagnostics (job id, stderr tail) and the reason from its record; what depends
//     on it is skipped. Independent instances go on.
//   - `interrupted` (set by SIGINT/SIGTERM) cancels every submitted task and returns Cancelled.
//     What was published stays published: a later sweep reuses it.
// Thread safety: one sweep per executor; the progress callback runs on the calling thread.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine/cache/cache.h"
#include "engine/exec/task_executor.h"
#include "engine/graph/dag.h"

namespace seqflow {

struct WaveCounts {
  int queued = 0, running = 0, done = 0, failed = 0;
  bool operator==(const WaveCounts&) const = default;
};

struct SweepProgress {
  std::vector<WaveCounts> waves;  // one per wave submitted so far
  int total = 0;                  // instances to compute (cached ones excluded)
  int skipped = 0;                // instances not run because an input failed
};

struct SweepOptions {
  int retries = 0;
  double poll_seconds = 1;
  double reread_seconds = 15;
  int task_threads = 1;    // cores for a kind that declares itself parallel
  int task_processes = 1;  // MPI ranks for a kind that declares itself data-parallel
  const std::atomic<bool>* interrupted = nullptr;
  // Called when a count changes.
  std::function<void(const SweepProgress&)> on_progress;
};

struct SweepResult {
  int cached = 0;     // instances found in the cache (at the start, or published meanwhile)
  int computed = 0;   // published by the executor's tasks
  int submitted = 0;  // tasks submitted, retries included
  int waves = 0;
  std::map<std::string, Status> failed;  // key -> why (a failure, or "skipped: input X failed")
};

// Errors: the executor's own (cannot submit, cannot poll) and Cancelled.
Result<SweepResult> RunSweep(const std::vector<const Dag*>& runs, Cache& cache, TaskExecutor& executor,
                             const SweepOptions& options);

}  // namespace seqflow

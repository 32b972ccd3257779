// TaskExecutor: where a sweep's node instances run when they do not run in this process — the
// submit / poll / cancel interface of DESIGN §10. A task is one node instance, named by its cache
// key; whatever runs it runs `seqflow run-node KEY` against the shared cache, which publishes the
// entry and a TaskStatus record (task_status.h). The executor only moves tasks and reports when
// they left the scheduler; the sweep (sweep.h) decides from the cache whether they succeeded.
//
// Implementations: SlurmExecutor (slurm_executor.h: job arrays) and ProcessExecutor
// (process_executor.h: child processes on this machine). The local default is not a
// TaskExecutor: it is Execute's flow graph in this process (executor.h), which needs no polling.
// Thread safety: used from one thread (the sweep's driver).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/base/status.h"

namespace seqflow {

struct Task {
  std::string key;
  std::string label;  // "node 'hmm' (hmm.em) of run 3/36", for messages
  int threads = 1;    // cores it may use
  int memory_mb = 0;  // memory it declares (0: the scheduler's default)
  int processes = 1;  // MPI ranks (a data-parallel kind's task), each with `threads` cores
};

enum class TaskState { kQueued, kRunning, kEnded };

// What every task runs, before its key (or --list FILE): `BINARY run-node --cache CACHE
// --threads N --checkpoint-seconds S`. The interval is the sweep's own --checkpoint-seconds, so a
// killed task loses what the user chose to risk.
std::vector<std::string> RunNodeArgv(const std::string& seqflow_binary, const std::string& cache_dir, int threads,
                                     double checkpoint_seconds);

// How many lines of a failed task's stderr its message quotes.
inline constexpr int kTaskErrorTailLines = 15;

class TaskExecutor {
 public:
  virtual ~TaskExecutor() = default;
  // Submits tasks whose inputs are all published; returns one handle per task, in order
  // (Slurm: "JOB_INDEX"). Several tasks may share a handle (run one after another by one job);
  // handles are never reused: a resubmitted task gets a new one.
  virtual Result<std::vector<std::string>> Submit(const std::vector<Task>& tasks) = 0;
  // The state of every submitted handle not yet reported as ended, with one query to the
  // scheduler however many tasks there are. Once reported kEnded, a handle is not reported again.
  virtual Result<std::map<std::string, TaskState>> Poll() = 0;
  // Cancels every submitted task that has not ended.
  virtual Status Cancel() = 0;
  // What the executor knows of an ended task's failure beyond its status record: the scheduler's
  // id and the tail of its stderr. One line or a few.
  virtual std::string Diagnostics(const std::string& handle) = 0;
};

}  // namespace seqflow

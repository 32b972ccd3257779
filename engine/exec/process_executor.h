// ProcessExecutor: a sweep's tasks as `seqflow run-node` child processes on this machine, at most
// `max_jobs` at a time — `seqflow run --executor processes`. The same driver as on a cluster
// (sweep.h), so a node that crashes or runs out of memory takes down its own process only: the
// sweep reports it (exit status, stderr tail) and goes on with what does not depend on it.
// Logs of task N go to <sweep dir>/logs/N.{out,err}; tasks.tsv says which task ran which node.
// A data-parallel task of P ranks runs under `mpirun --oversubscribe -np P`.
// Thread safety: one thread.
#pragma once

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

#include "engine/base/env.h"
#include "engine/exec/task_executor.h"

namespace seqflow {

struct ProcessOptions {
  std::string seqflow_binary;  // absolute
  std::string cache_dir;
  std::string sweep_dir;
  int max_jobs = 1;  // children at once
  double checkpoint_seconds = 30;  // between a task's checkpoints (RunNodeArgv)
};

class ProcessExecutor final : public TaskExecutor {
 public:
  ProcessExecutor(ProcessOptions options, Env* env);
  ~ProcessExecutor() override;  // Cancel()

  Result<std::vector<std::string>> Submit(const std::vector<Task>& tasks) override;
  // Reaps children that exited and starts queued tasks in their place.
  Result<std::map<std::string, TaskState>> Poll() override;
  Status Cancel() override;
  std::string Diagnostics(const std::string& handle) override;

 private:
  Status Start(const std::string& handle);

  ProcessOptions options_;
  Env* env_;
  int next_ = 0;
  std::map<std::string, Task> queued_;  // handle -> task, started in handle order
  std::vector<std::string> order_;      // queued handles in submission order
  std::map<pid_t, std::string> running_;
  std::map<std::string, int> exit_codes_;  // ended handles
  std::string submitted_;                  // tasks.tsv
};

}  // namespace seqflow

// TaskStatus: the record a remote worker (`seqflow run-node`) leaves in the cache when it exits,
// <cache>/status/<key>.status, so the driver of a sweep learns each task's outcome from the
// cache it shares with the workers, not from the scheduler (Slurm without accounting forgets a
// job's exit code within minutes; a job killed for memory reports "terminated for an unknown
// reason"). Published by rename like an entry; the driver removes it before a task is
// (re)submitted, so a record found is the latest attempt's.
// Thread safety: free functions on an Env (which is thread safe).
#pragma once

#include <optional>
#include <string>

#include "engine/base/env.h"
#include "engine/base/status.h"

namespace seqflow {

struct TaskStatus {
  int exit_code = 0;   // 0 computed or already cached; 1 the node failed; 2 the task was invalid
  std::string reason;  // one line; empty on success
  std::string host;
  std::string job;  // the scheduler's id of the task ("123_4"), when it ran under one
  double seconds = 0;
};

std::string TaskStatusPath(const std::string& cache_dir, const std::string& key);
Status WriteTaskStatus(Env* env, const std::string& cache_dir, const std::string& key, const TaskStatus& status);
// nullopt when there is none (not finished, or killed before it could write one).
Result<std::optional<TaskStatus>> ReadTaskStatus(Env* env, const std::string& cache_dir, const std::string& key);
Status RemoveTaskStatus(Env* env, const std::string& cache_dir, const std::string& key);

}  // namespace seqflow

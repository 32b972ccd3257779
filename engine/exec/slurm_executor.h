// SlurmExecutor: a sweep's tasks as Slurm job arrays (DESIGN §10).
//
// Submit writes the wave's keys to a list file in the sweep directory and submits one array per
// resource class (cores, memory): `sbatch --array=0-(n-1)%max_jobs -c T --mem=M --wrap "exec
// seqflow run-node --cache C --list FILE"`; array task i runs the keys on line i of FILE, one
// after another. One array per wave, not one sbatch per node, so a grid of thousands does not
// flood the controller; `bundle` keys per line, so that nodes of a second or less do not each pay
// a job's start (about 0.3 s of slurmd and slurmstepd per task on the test cluster). Every array of one
// sweep has the same job name, unique to the sweep (`seqflow-<sweep id>`), so one squeue call
// polls them all and one scancel cancels them all. stdout and stderr of task JOB_i go to
// <sweep dir>/logs/JOB_i.{out,err}, where Diagnostics reads the stderr tail; <sweep dir>/tasks.tsv
// says which task ran which node ("JOB_i <tab> key <tab> node label", one line per node).
//
// What it does not do: decide success (the sweep reads the cache), or retry (the sweep resubmits).
// Thread safety: one thread.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/base/env.h"
#include "engine/exec/task_executor.h"

namespace seqflow {

struct SlurmOptions {
  std::string seqflow_binary;            // absolute; the same path on every compute node
  std::string cache_dir;                 // absolute; a filesystem every compute node mounts
  std::string work_dir;                  // absolute; the tasks' working directory (sbatch --chdir)
  std::string sweep_dir;                 // absolute; under the cache: task lists and logs
  std::string job_name;                  // unique to the sweep
  std::string partition;                 // empty: the cluster's default
  int max_jobs = 0;                      // tasks of one array running at once (the %N); 0: no limit
  int bundle = 1;                        // keys run by one array task
  std::vector<std::string> sbatch_args;  // passed through, before --wrap
  double checkpoint_seconds = 30;        // between a task's checkpoints (RunNodeArgv)
};

class SlurmExecutor final : public TaskExecutor {
 public:
  SlurmExecutor(SlurmOptions options, Env* env);

  Result<std::vector<std::string>> Submit(const std::vector<Task>& tasks) override;
  Result<std::map<std::string, TaskState>> Poll() override;
  Status Cancel() override;
  std::string Diagnostics(const std::string& handle) override;

  // The sbatch command line of one array (for tests and messages).
  // With processes > 1 every array task is an MPI job of that many ranks (`--ntasks`, started by
  // `srun --mpi=pmix`), for a data-parallel kind.
  std::vector<std::string> SbatchCommand(const std::string& list_file, int tasks, int threads, int memory_mb,
                                         int processes = 1) const;

 private:
  SlurmOptions options_;
  Env* env_;
  int lists_ = 0;                  // list files written
  std::set<std::string> pending_;  // handles not yet reported ended
  std::string submitted_;          // tasks.tsv
};

// Parses `squeue -h -r -o "%i %t"` output into handle -> state; lines it cannot read are ignored.
std::map<std::string, TaskState> ParseSqueue(const std::string& text);

}  // namespace seqflow

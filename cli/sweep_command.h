// `seqflow run --executor slurm|processes`: the pipeline's node instances not in the cache are
// computed by Slurm job arrays or by `seqflow run-node` child processes (engine/exec/sweep.h)
// before `seqflow run` assembles the run record from the cache as usual.
#pragma once

#include <functional>

#include "cli/commands.h"
#include "engine/cache/cache.h"

namespace seqflow::cli {

// The gate for the Execute calls that follow the sweep (ExecOptions::may_compute): nothing is
// computed locally; a node whose task failed fails with its task's report. An Io/Internal error
// when the sweep could not run (sbatch missing, controller down), Cancelled when interrupted.
Result<std::function<Status(const DagNode&)>> Sweep(const Pipeline& pipeline, const RunArgs& args, Cache& cache);

}  // namespace seqflow::cli

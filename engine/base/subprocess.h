// RunProcess: runs a program (found on PATH) to completion and captures what it printed; how the
// Slurm executor talks to sbatch, squeue and scancel.
// Thread safety: safe to call concurrently.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"

namespace seqflow {

struct ProcessOutput {
  int exit_code = 0;  // 128 + signal when killed by one
  std::string out;
  std::string err;
};

// Io error only when the program cannot be started (not on PATH, not executable); a program that
// ran and failed is an Ok result with its exit code.
Result<ProcessOutput> RunProcess(const std::vector<std::string>& argv);

// The last `lines` lines of `text` (a program's or a task's stderr), trailing newlines dropped.
std::string LastLines(std::string_view text, int lines);

// `argv` as one line a shell would read back to the same words (each word single-quoted where
// needed); for messages, and for sbatch --wrap.
std::string ShellQuote(const std::vector<std::string>& argv);

}  // namespace seqflow

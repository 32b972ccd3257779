// What a run record says about its invocation (RunInvocation): the command, the UTC times, the
// host, and the git commit and state of the work tree that holds the pipeline file.
// Thread safety: not thread safe (runs git as a child process).
#pragma once

#include <string>
#include <vector>

#include "engine/record/run_record.h"

namespace seqflow::cli {

// The invocation as it starts: `finished` empty. git is asked where the pipeline file lies; no git,
// or a file outside a work tree, leaves the git fields empty.
RunInvocation StartInvocation(const std::vector<std::string>& command, const std::vector<std::string>& sets,
                              const std::string& pipeline_path);

// The current UTC time as 2026-12-07T06:30:00Z.
std::string UtcNow();

}  // namespace seqflow::cli

#include "engine/exec/task_executor.h"

#include <sstream>

namespace seqflow {

std::vector<std::string> RunNodeArgv(const std::string& seqflow_binary, const std::string& cache_dir, int threads,
                                     double checkpoint_seconds) {
  std::ostringstream seconds;
  seconds << checkpoint_seconds;
  return {seqflow_binary, "run-node", "--cache", cache_dir, "--threads", std::to_string(threads),
          "--checkpoint-seconds", seconds.str()};
}

}  // namespace seqflow

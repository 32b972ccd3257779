// The validity cases' e2e tests (docs/validity.md): generate a case's data with seqflow-datagen,
// run a pipeline on it, read the summary.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "tests/e2e/cli_runner.h"

namespace seqflow::testutil {

// `seqflow-datagen --out DIR/data ARGS` in a new temporary folder DIR, which it returns.
inline std::string GenerateValidityData(const std::string& name, const std::string& datagen_args) {
  const std::string dir = MakeTempDir("seqflow-validity-" + name);
  const std::string command = std::string(SEQFLOW_DATAGEN) + " --out " + dir + "/data " + datagen_args;
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  return dir;
}

// `seqflow run PIPELINE [ARGS]` with validity_data = DIR/data, its cache and output in DIR: the
// summary.
inline nlohmann::json RunOnValidityData(const std::string& pipeline, const std::string& dir,
                                        const std::vector<std::string>& args = {}) {
  std::vector<std::string> command = {"run",   pipeline,          "--set", "validity_data=" + dir + "/data",
                                      "--cache", dir + "/cache", "--out", dir + "/out",
                                      "-j",      "2"};
  command.insert(command.end(), args.begin(), args.end());
  CliResult r = RunSeqflow(command);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return ReadSummary(dir + "/out");
}

}  // namespace seqflow::testutil

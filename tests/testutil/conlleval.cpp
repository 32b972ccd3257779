#include "tests/testutil/conlleval.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "tests/testutil/status_matchers.h"

namespace seqflow::testutil {

nlohmann::json ConllevalJson(const std::string& path) {
  const std::string script = SourceDir() + "/../shared/bench/peers/conlleval.py";
  const std::string command = "python3 '" + script + "' --json '" + path + "'";
  std::string out;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buf[4096];
    for (size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
    EXPECT_EQ(pclose(pipe), 0) << command;
  }
  return nlohmann::json::parse(out);
}

}  // namespace seqflow::testutil

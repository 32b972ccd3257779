// ExecutorTest: a fresh cache directory per test and helpers to run a Dag of fake kinds.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

#include "engine/exec/executor.h"
#include "tests/engine/exec/fake_kinds.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::testkit {

class ExecutorTest : public ::testing::Test {
 protected:
  ExecutorTest() : dir_(testutil::MakeTempDir("seqflow-exec")), cache_(dir_, &FakeRegistry(), Env::Default()) {}
  ~ExecutorTest() override { std::filesystem::remove_all(dir_); }

  // A fresh memo each time, so reuse must come from the cache directory.
  RunResult Run(const Dag& dag, int threads = 2, std::set<std::string> force = {}) {
    ArtifactMemo memo;
    return RunWithMemo(dag, memo, threads, std::move(force));
  }
  RunResult RunWithMemo(const Dag& dag, ArtifactMemo& memo, int threads = 2, std::set<std::string> force = {}) {
    ExecOptions options;
    options.threads = threads;
    options.force = std::move(force);
    return Execute(dag, cache_, memo, Env::Default(), options);
  }
  static const NodeOutcome& Outcome(const RunResult& r, const std::string& name) {
    for (const NodeOutcome& n : r.nodes)
      if (n.name == name) return n;
    throw std::logic_error("no outcome for " + name);
  }
  static std::map<std::string, NodeStatus> Statuses(const RunResult& r) {
    std::map<std::string, NodeStatus> out;
    for (const NodeOutcome& n : r.nodes) out[n.name] = n.status;
    return out;
  }
  std::string Bytes(const std::string& key) {
    auto entry = cache_.Load(key);
    EXPECT_TRUE(entry.ok() && entry->has_value()) << key;
    return entry.ok() && entry->has_value() ? BytesOf(*(*entry)->artifact) : "";
  }

  std::string dir_;
  Cache cache_;
};

}  // namespace seqflow::testkit

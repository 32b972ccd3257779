// A test fixture for an iterative node's checkpoints on the real binary: one pipeline whose
// iteration budget is one `--set` (Traits::kBudgetSet), an uninterrupted run at Traits::kBudget
// made once for the suite in its own cache, and the comparison of another cache's entries with it
// (timing fields aside). Traits: kTempName, kPipeline, kBudgetSet, kBudget, kCheckpointSeconds.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "tests/e2e/cli_runner.h"
#include "tests/e2e/timeless_entry.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::testutil {

template <class Traits>
class CheckpointPipelineTest : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::filesystem::path(MakeTempDir(Traits::kTempName));
    CliResult uninterrupted = RunSeqflow(Args("uninterrupted", Traits::kBudget));
    ASSERT_EQ(uninterrupted.exit_code, 0) << uninterrupted.err;
    EXPECT_EQ(uninterrupted.err.find("resuming"), std::string::npos);
    EXPECT_EQ(uninterrupted.err.find("continues"), std::string::npos);
  }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*dir_);
    delete dir_;
  }
  static std::string Cache(const std::string& name) { return (*dir_ / name).string(); }
  static std::vector<std::string> Args(const std::string& cache, int budget, const std::string& command = "run") {
    std::vector<std::string> args{command, PipelinePath(Traits::kPipeline), "--set",
                                  std::string(Traits::kBudgetSet) + "=" + std::to_string(budget), "--cache",
                                  Cache(cache)};
    if (command == "run") args.insert(args.end(), {"-j", "2", "--checkpoint-seconds", Traits::kCheckpointSeconds});
    return args;
  }
  // Every entry of the uninterrupted run is in `cache`, with the same bytes (timing aside).
  static void ExpectUninterruptedEntriesIn(const std::string& cache) {
    const std::map<std::string, std::string> all = ValueOrThrow(TimelessEntries(Cache(cache)));
    for (const auto& [name, entry] : ValueOrThrow(TimelessEntries(Cache("uninterrupted")))) {
      auto found = all.find(name);
      ASSERT_NE(found, all.end()) << name << " is missing from " << cache;
      EXPECT_TRUE(found->second == entry) << name << " differs from the uninterrupted run's";
    }
  }

 private:
  static inline std::filesystem::path* dir_ = nullptr;
};

}  // namespace seqflow::testutil

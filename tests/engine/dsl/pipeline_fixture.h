// Shared by the dsl and graph tests: pipelines written as files into a fresh temp dir, a check
// that a Status failed at an exact place with an exact message, and scoped environment vars.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "engine/dsl/spec.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::testutil {

// Sets (or unsets, with nullopt) an environment variable for the life of the object.
class ScopedEnv {
 public:
  ScopedEnv(std::string name, std::optional<std::string> value) : name_(std::move(name)) {
    if (const char* old = std::getenv(name_.c_str())) old_ = old;
    if (value) {
      ::setenv(name_.c_str(), value->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_.c_str(), old_->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// Passes when `s` failed at exactly file:line:col (file compared by its last path component)
// with exactly `message`.
inline ::testing::AssertionResult FailsAt(const Status& s, const std::string& file, int line, int col,
                                          const std::string& message) {
  if (s.ok()) return ::testing::AssertionFailure() << "expected an error, got OK";
  const SourceLoc& loc = s.loc();
  std::string base = loc.file.substr(loc.file.rfind('/') + 1);
  if (base != file || loc.line != line || loc.col != col || s.message() != message)
    return ::testing::AssertionFailure() << "got      " << base << ":" << loc.line << ":" << loc.col << ": "
                                         << s.message() << "\nexpected " << file << ":" << line << ":" << col
                                         << ": " << message;
  return ::testing::AssertionSuccess();
}
template <class T>
::testing::AssertionResult FailsAt(const Result<T>& r, const std::string& file, int line, int col,
                                   const std::string& message) {
  return FailsAt(r.status(), file, line, col, message);
}

class PipelineTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeTempDir("seqflow-pipeline"); }

  // Writes `text` to dir_/name (creating folders) and returns the path.
  std::string Write(const std::string& name, const std::string& text) {
    std::string path = dir_ + "/" + name;
    std::string folder = path.substr(0, path.rfind('/'));
    std::filesystem::create_directories(folder);
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  // Writes p.yaml and parses it.
  Result<PipelineSpec> Parse(const std::string& text, std::vector<std::string> sets = {}) {
    return ParsePipelineFile(Write("p.yaml", text), Overrides{std::move(sets)}, Env::Default());
  }

  std::string dir_;
};

}  // namespace seqflow::testutil

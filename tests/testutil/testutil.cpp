#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "tests/testutil/status_matchers.h"

namespace seqflow::testutil {

std::string SourceDir() {
  const char* dir = std::getenv("SEQFLOW_SOURCE_DIR");
  return dir != nullptr ? dir : SEQFLOW_DEFAULT_SOURCE_DIR;
}

std::string DataDir() {
  const char* dir = std::getenv("SEQFLOW_DATA");
  if (dir != nullptr && *dir) return dir;
  return (std::filesystem::path(SourceDir()) / ".." / "shared" / "data").lexically_normal().string();
}

namespace {

// The directories MakeTempDir made, removed when the test binary exits: the end-to-end tests
// leave caches of up to 100 MB each, and a few hundred runs filled this machine's disk.
// SEQFLOW_KEEP_TEST_DIRS=1 keeps them, to look at after a failure.
class MadeDirs {
 public:
  void Add(std::string dir) {
    std::lock_guard<std::mutex> lock(mutex_);
    dirs_.push_back(std::move(dir));
  }
  ~MadeDirs() {
    const char* keep = std::getenv("SEQFLOW_KEEP_TEST_DIRS");
    if (keep != nullptr && *keep != '\0' && std::string_view(keep) != "0") return;
    for (const std::string& dir : dirs_) {
      std::error_code ignored;
      std::filesystem::remove_all(dir, ignored);
    }
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> dirs_;
};

MadeDirs& Made() {
  static MadeDirs made;
  return made;
}

}  // namespace

std::string MakeTempDir(const std::string& prefix) {
  std::string templ = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  char* made = ::mkdtemp(templ.data());
  if (made == nullptr) throw std::runtime_error("mkdtemp failed for " + templ);
  Made().Add(made);
  return made;
}

}  // namespace seqflow::testutil

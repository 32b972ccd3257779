#include <cstdlib>
#include <filesystem>
#include <string>

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

std::string MakeTempDir(const std::string& prefix) {
  std::string templ = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  char* made = ::mkdtemp(templ.data());
  if (made == nullptr) throw std::runtime_error("mkdtemp failed for " + templ);
  return made;
}

}  // namespace seqflow::testutil

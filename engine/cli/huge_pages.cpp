#include "engine/cli/huge_pages.h"

#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

namespace seqflow::cli {
namespace {

// The GLIBC_TUNABLES value to restart with, given the current one (null: unset); nullopt when it
// sets glibc.malloc.hugetlb already.
std::optional<std::string> TunablesWithHugePages(const char* tunables) {
  const std::string current = tunables == nullptr ? "" : tunables;
  if (current.find("glibc.malloc.hugetlb") != std::string::npos) return std::nullopt;
  return current.empty() ? "glibc.malloc.hugetlb=1" : current + ":glibc.malloc.hugetlb=1";
}

}  // namespace

bool MallocOnHugePages() {
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (tunables == nullptr) return false;
  const std::string_view text = tunables;
  const std::string_view name = "glibc.malloc.hugetlb=";
  const size_t at = text.find(name);
  return at != std::string_view::npos && at + name.size() < text.size() && text[at + name.size()] != '0';
}

void RestartWithHugePages(char** argv) {
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  const bool had_tunables = tunables != nullptr;
  const std::string before = had_tunables ? tunables : "";
  const std::optional<std::string> wanted = TunablesWithHugePages(tunables);
  if (!wanted || ::setenv("GLIBC_TUNABLES", wanted->c_str(), 1) != 0) return;
  ::execv("/proc/self/exe", argv);
  // Not restarted (no /proc, say): the children this run starts see the environment it was given.
  if (had_tunables)
    ::setenv("GLIBC_TUNABLES", before.c_str(), 1);
  else
    ::unsetenv("GLIBC_TUNABLES");
}

}  // namespace seqflow::cli

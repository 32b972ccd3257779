#include "cli/huge_pages.h"

#include <malloc.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

namespace seqflow::cli {
namespace {

constexpr std::string_view kHugetlb = "glibc.malloc.hugetlb=";

// The value GLIBC_TUNABLES gives glibc.malloc.hugetlb; nullopt when it is unset or names none.
std::optional<std::string_view> HugetlbSetting(const char* tunables) {
  if (tunables == nullptr) return std::nullopt;
  const std::string_view text = tunables;
  const size_t at = text.find(kHugetlb);
  if (at == std::string_view::npos) return std::nullopt;
  const std::string_view value = text.substr(at + kHugetlb.size());
  return value.substr(0, value.find(':'));
}

}  // namespace

bool MallocOnHugePages() {
  const std::optional<std::string_view> value = HugetlbSetting(std::getenv("GLIBC_TUNABLES"));
  return value && !value->empty() && *value != "0";
}

void RestartWithHugePages(char** argv) {
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (HugetlbSetting(tunables)) return;
  const bool had_tunables = tunables != nullptr;
  const std::string before = had_tunables ? tunables : "";
  const std::string wanted = (before.empty() ? "" : before + ":") + std::string(kHugetlb) + "1";
  if (::setenv("GLIBC_TUNABLES", wanted.c_str(), 1) != 0) return;
  ::execv("/proc/self/exe", argv);
  // Not restarted (no /proc, say): the children this run starts see the environment it was given.
  if (had_tunables)
    ::setenv("GLIBC_TUNABLES", before.c_str(), 1);
  else
    ::unsetenv("GLIBC_TUNABLES");
}

void KeepFreedMemoryInTheHeap() {
  // glibc's largest mmap threshold (DEFAULT_MMAP_THRESHOLD_MAX on 64-bit); mallopt refuses more.
  constexpr int kLargestMmapThreshold = 32 << 20;
  ::mallopt(M_MMAP_THRESHOLD, kLargestMmapThreshold);
  ::mallopt(M_TRIM_THRESHOLD, INT_MAX);
  ::mallopt(M_TOP_PAD, 64 << 20);
}

}  // namespace seqflow::cli

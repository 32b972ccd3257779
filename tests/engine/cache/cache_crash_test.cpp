// A writer killed with SIGKILL at a random moment never leaves a partial entry under an entry's
// name: every entry file present loads, temp files are ignored, and Gc clears them once stale.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <random>
#include <thread>

#include "tests/engine/cache/cache_fixture.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::testkit {
namespace cache_crash_test {

constexpr int kKeys = 3;

std::string CrashKey(uint64_t n) { return "c0ffee" + std::string(25, '0') + std::to_string(n % kKeys); }

// Child body: stores ~4 MB entries over a few keys until killed; each write differs.
[[noreturn]] void StoreForever(const std::string& dir) {
  Cache cache(dir, &TestRegistry(), Env::Default());
  std::vector<double> data(1 << 19);
  for (uint64_t n = 0;; ++n) {
    std::fill(data.begin(), data.end(), static_cast<double>(n));
    CacheEntry e;
    e.kind = "big";
    e.artifact = std::make_shared<TestValue>("big", static_cast<double>(n), data);
    if (!cache.Store(CrashKey(n), e).ok()) ::_exit(3);
  }
}

struct Files {
  std::vector<std::string> entries, temps;
};

Files Scan(const std::string& dir) {
  Files files;
  if (!std::filesystem::exists(dir)) return files;
  for (const auto& f : std::filesystem::recursive_directory_iterator(dir)) {
    if (!f.is_regular_file()) continue;
    std::string name = f.path().filename().string();
    (name.find(".tmp.") != std::string::npos ? files.temps : files.entries).push_back(f.path().string());
  }
  return files;
}

TEST_F(CacheTest, SigkillMidWriteLeavesOnlyWholeEntries) {
  std::random_device seed_source;
  const unsigned seed = seed_source();
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> delay_ms(5, 250);
  int temps_seen = 0;
  for (int trial = 0; trial < 8; ++trial) {
    SCOPED_TRACE("seed " + std::to_string(seed) + ", trial " + std::to_string(trial));
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) StoreForever(dir_);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(rng)));
    ASSERT_EQ(::kill(pid, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the writer stopped by itself, exit " << WEXITSTATUS(status);

    Files files = Scan(dir_);
    temps_seen += static_cast<int>(files.temps.size());
    for (const std::string& path : files.entries) {
      std::string key = std::filesystem::path(path).stem().string();
      auto loaded = cache_.Load(key);
      EXPECT_OK(loaded);
      EXPECT_TRUE(loaded.ok() && loaded->has_value()) << path;
    }
    auto listing = cache_.List();
    ASSERT_OK(listing);
    EXPECT_EQ(listing->size(), files.entries.size());
    for (const CacheListing& l : *listing) EXPECT_EQ(l.kind, "big") << l.key;
  }
  EXPECT_FALSE(Scan(dir_).entries.empty()) << "no writer ever published an entry";

  Files before = Scan(dir_);
  for (const std::string& temp : before.temps) Backdate(temp, 2 * 3600);
  auto removed = cache_.Gc(365);
  ASSERT_OK(removed);
  EXPECT_EQ(removed->entries, 0);
  Files after = Scan(dir_);
  EXPECT_TRUE(after.temps.empty());
  EXPECT_EQ(after.entries.size(), before.entries.size());
  RecordProperty("temp_files_left_by_kills", temps_seen);
}

}  // namespace cache_crash_test
}  // namespace seqflow::testkit

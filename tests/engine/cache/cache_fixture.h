// CacheTest: a Cache on a fresh temp directory with a registry that knows TestValue, plus helpers
// to read, overwrite and age entry files behind the cache's back.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <string>

#include "engine/cache/cache.h"
#include "tests/engine/cache/test_artifact.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::testkit {

inline const Registry& TestRegistry() {
  static const Registry* registry = [] {
    auto* r = new Registry();  // never deleted: shared by every test of the process
    r->AddArtifactType<TestValue>();
    return r;
  }();
  return *registry;
}

// Sets a file's mtime `seconds` into the past (what an old, unused entry looks like).
inline void Backdate(const std::string& path, double seconds) {
  struct timespec times[2];
  ::clock_gettime(CLOCK_REALTIME, &times[0]);
  times[0].tv_sec -= static_cast<time_t>(seconds);
  times[1] = times[0];
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0) << path;
}

class CacheTest : public ::testing::Test {
 protected:
  CacheTest() : dir_(testutil::MakeTempDir("seqflow-cache")), cache_(dir_, &TestRegistry(), Env::Default()) {}
  ~CacheTest() override { std::filesystem::remove_all(dir_); }

  static CacheEntry Entry(double number, std::string kind = "const") {
    CacheEntry e;
    e.kind = std::move(kind);
    e.artifact = std::make_shared<TestValue>("x", number, std::vector<double>{0.1, -0.0, 1e-310, std::numbers::pi});
    e.seconds = 0.25;
    e.metrics = {{"f1", 0.326}, {"objective.final", -1234.5678901234567}};
    e.attachments = {{"path.csv", "s,lambda\n0,0.1\n"}, {"notes.txt", std::string("a\0b", 3)}};
    return e;
  }
  std::string PathOf(const std::string& key) const { return dir_ + "/" + key.substr(0, 2) + "/" + key + ".sfa"; }
  std::string Read(const std::string& key) { return ValueOrThrow(Env::Default()->ReadFile(PathOf(key))); }
  // Plain overwrite, no fsync: damage is made quickly and is not the cache's doing.
  void Write(const std::string& key, const std::string& bytes) {
    std::ofstream out(PathOf(key), std::ios::binary | std::ios::trunc);
    out << bytes;
    ASSERT_TRUE(out.good()) << PathOf(key);
  }
  // Load must fail with Corruption naming the file and containing `why`.
  void ExpectCorrupt(const std::string& key, const std::string& why) {
    auto loaded = cache_.Load(key);
    ASSERT_FALSE(loaded.ok()) << why;
    EXPECT_EQ(loaded.status().code(), StatusCode::kCorruption);
    EXPECT_NE(loaded.status().message().find(PathOf(key)), std::string::npos) << loaded.status().message();
    EXPECT_NE(loaded.status().message().find(why), std::string::npos) << loaded.status().message();
  }

  std::string dir_;
  Cache cache_;
  const std::string key_ = "0123456789abcdef0123456789abcdef";
};

}  // namespace seqflow::testkit

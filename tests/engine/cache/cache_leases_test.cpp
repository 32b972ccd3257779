// CacheLeases: a gc never holds the cache beside a live run or another gc; a run waits for a gc
// to finish; the lease of a run that died holds nothing.
#include "engine/cache/cache_leases.h"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "tests/engine/cache/cache_fixture.h"

namespace seqflow::testkit {
namespace cache_leases_test {

using CacheLeasesTest = CacheTest;

std::unique_ptr<KeyLock> HoldForGc(CacheLeases& leases, std::vector<LockHolder>* users) {
  return ValueOrThrow(leases.TryHoldForGc(users));
}

TEST_F(CacheLeasesTest, GcIsRefusedWhileARunHoldsTheCacheAndNamesIt) {
  CacheLeases runs(dir_, Env::Default()), gcs(dir_, Env::Default());
  std::unique_ptr<KeyLock> run = ValueOrThrow(runs.HoldForRun());
  ASSERT_NE(run, nullptr);
  std::vector<LockHolder> users;
  EXPECT_EQ(HoldForGc(gcs, &users), nullptr);
  ASSERT_EQ(users.size(), 1u);
  EXPECT_EQ(users[0].pid, ::getpid());
  run.reset();
  EXPECT_NE(HoldForGc(gcs, &users), nullptr);
  EXPECT_TRUE(users.empty());
}

TEST_F(CacheLeasesTest, OneGcAtATime) {
  CacheLeases a(dir_, Env::Default()), b(dir_, Env::Default());
  std::vector<LockHolder> users;
  std::unique_ptr<KeyLock> first = HoldForGc(a, &users);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(HoldForGc(b, &users), nullptr);
  EXPECT_EQ(users.size(), 1u);
  first.reset();
  EXPECT_NE(HoldForGc(b, &users), nullptr);
}

TEST_F(CacheLeasesTest, ARunWaitsUntilTheGcHasFinished) {
  CacheLeases gcs(dir_, Env::Default()), runs(dir_, Env::Default());
  std::vector<LockHolder> users;
  std::unique_ptr<KeyLock> gc = HoldForGc(gcs, &users);
  ASSERT_NE(gc, nullptr);
  std::atomic<bool> started{false};
  std::thread run([&] {
    std::unique_ptr<KeyLock> lease = ValueOrThrow(runs.HoldForRun(0.01));
    started = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_FALSE(started) << "a run started while gc held the cache";
  gc.reset();
  run.join();
  EXPECT_TRUE(started);
}

TEST_F(CacheLeasesTest, TheLeaseOfARunThatDiedHoldsNothing) {
  pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ASSERT_GT(child, 0);
  ASSERT_EQ(::waitpid(child, nullptr, 0), child);  // reaped: the pid names no process now
  const std::string host = KeyLocks::OwnerText().substr(0, KeyLocks::OwnerText().find(' '));
  std::filesystem::create_directories(dir_ + "/leases");
  std::ofstream(dir_ + "/leases/run-" + host + "-" + std::to_string(child) + "-0.lock")
      << host << " " << child << "\n";
  CacheLeases gcs(dir_, Env::Default());
  std::vector<LockHolder> users;
  EXPECT_NE(HoldForGc(gcs, &users), nullptr);
}

}  // namespace cache_leases_test
}  // namespace seqflow::testkit

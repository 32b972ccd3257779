// KeyLocks: exclusive per key, released by the owner, stale locks of dead or silent owners broken,
// live ones respected, the heartbeat keeping a held lock fresh.
#include "engine/cache/key_locks.h"

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "tests/engine/cache/cache_fixture.h"

namespace seqflow::testkit {
namespace key_locks_test {

class KeyLocksTest : public CacheTest {
 protected:
  std::unique_ptr<KeyLock> Take(KeyLocks& locks, LockHolder* holder = nullptr) {
    return ValueOrThrow(locks.TryAcquire(key_, holder));
  }
  void WriteLock(const std::string& text) {
    std::filesystem::create_directories(dir_ + "/locks");
    std::ofstream(dir_ + "/locks/" + key_ + ".lock") << text;
  }
};

TEST_F(KeyLocksTest, ALockIsExclusiveUntilReleased) {
  KeyLocks locks(dir_, Env::Default());
  std::unique_ptr<KeyLock> first = Take(locks);
  ASSERT_NE(first, nullptr);
  EXPECT_TRUE(std::filesystem::exists(locks.PathOf(key_)));
  LockHolder holder;
  EXPECT_EQ(Take(locks, &holder), nullptr) << "this process is alive: its lock is not stale";
  EXPECT_EQ(holder.pid, ::getpid());
  first.reset();
  EXPECT_FALSE(std::filesystem::exists(locks.PathOf(key_)));
  EXPECT_NE(Take(locks), nullptr);
}

TEST_F(KeyLocksTest, TwoLockSetsOnOneDirectoryExcludeEachOther) {
  KeyLocks a(dir_, Env::Default()), b(dir_, Env::Default());
  std::unique_ptr<KeyLock> held = Take(a);
  ASSERT_NE(held, nullptr);
  EXPECT_EQ(Take(b), nullptr);
  held.reset();
  EXPECT_NE(Take(b), nullptr);
}

TEST_F(KeyLocksTest, TheLockOfADeadProcessOnThisHostIsBrokenAtOnce) {
  pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ASSERT_GT(child, 0);
  ASSERT_EQ(::waitpid(child, nullptr, 0), child);  // reaped: the pid names no process now
  std::string host = KeyLocks::OwnerText().substr(0, KeyLocks::OwnerText().find(' '));
  WriteLock(host + " " + std::to_string(child) + "\n");
  KeyLocks locks(dir_, Env::Default());
  EXPECT_NE(Take(locks), nullptr);
}

TEST_F(KeyLocksTest, ALockOfAnotherHostIsRespectedWhileFreshAndBrokenWhenSilent) {
  WriteLock("some-other-node 4242\n");
  KeyLocks locks(dir_, Env::Default(), KeyLockOptions{.heartbeat_seconds = 1, .stale_seconds = 30});
  LockHolder holder;
  EXPECT_EQ(Take(locks, &holder), nullptr);
  EXPECT_EQ(holder.host, "some-other-node");
  EXPECT_EQ(holder.pid, 4242);
  Backdate(locks.PathOf(key_), 31);
  std::unique_ptr<KeyLock> taken = Take(locks);
  ASSERT_NE(taken, nullptr);
  EXPECT_EQ(ValueOrThrow(Env::Default()->ReadFile(locks.PathOf(key_))), KeyLocks::OwnerText());
}

TEST_F(KeyLocksTest, TheHeartbeatKeepsAHeldLockFresh) {
  KeyLocks locks(dir_, Env::Default(), KeyLockOptions{.heartbeat_seconds = 0.05, .stale_seconds = 30});
  std::unique_ptr<KeyLock> held = Take(locks);
  ASSERT_NE(held, nullptr);
  Backdate(locks.PathOf(key_), 3600);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  auto age = std::filesystem::file_time_type::clock::now() - std::filesystem::last_write_time(locks.PathOf(key_));
  EXPECT_LT(age, std::chrono::seconds(5));
}

TEST_F(KeyLocksTest, ReleaseLeavesAnotherOwnersLockInPlace) {
  KeyLocks locks(dir_, Env::Default());
  std::unique_ptr<KeyLock> held = Take(locks);
  ASSERT_NE(held, nullptr);
  WriteLock("some-other-node 4242\n");  // ours was broken as stale and another worker took it
  held.reset();
  EXPECT_TRUE(std::filesystem::exists(locks.PathOf(key_)));
}

}  // namespace key_locks_test
}  // namespace seqflow::testkit

// The run history kept in the cache for `seqflow plan`: exact round trip, damage reported as
// Corruption naming the file, and gc pruning histories that are old, whose entries are all gone,
// or that cannot be read.
#include "engine/cache/run_history.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "tests/engine/cache/cache_fixture.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::testkit {
namespace run_history_test {

constexpr double kDay = 86400;
const std::string kRunA = "aaaa0000000000000000000000000001", kRunB = "bbbb0000000000000000000000000002";

class RunHistoryTest : public CacheTest {
 protected:
  std::string HistoryPath(const std::string& run_id) const { return dir_ + "/runs/" + run_id + ".sfr"; }
  // A history of two nodes with keys `first` and `second`.
  static RunHistory History(const std::string& first, const std::string& second) {
    RunHistory h;
    h.nodes["train"] = {first, {{"kind", "hmm.supervised@1"}, {"param:smoothing.emission", "0.05"}}};
    h.nodes["score"] = {second, {{"kind", "eval.segments@2"}, {"input:predicted", first}}};
    return h;
  }
};

TEST_F(RunHistoryTest, StoreThenLoadGivesTheSameHistory) {
  auto none = cache_.LoadRunHistory(kRunA);
  ASSERT_OK(none);
  EXPECT_FALSE(none->has_value());
  const RunHistory history = History(key_, "fedcba9876543210fedcba9876543210");
  ASSERT_OK(cache_.StoreRunHistory(kRunA, history));
  auto loaded = cache_.LoadRunHistory(kRunA);
  ASSERT_OK(loaded);
  ASSERT_TRUE(loaded->has_value());
  EXPECT_TRUE(**loaded == history);
  EXPECT_TRUE(Env::Default()->Exists(HistoryPath(kRunA))) << "under <cache>/runs/";
  EXPECT_EQ(cache_.StoreRunHistory("../escape", history).code(), StatusCode::kInvalid);
}

// A rerun with the same keys renews the history's date (gc keeps it) without rewriting it; new
// keys rewrite it.
TEST_F(RunHistoryTest, StoringTheSameHistoryAgainRenewsItsDate) {
  auto inode = [&] {
    struct stat st {};
    EXPECT_EQ(::stat(HistoryPath(kRunA).c_str(), &st), 0);
    return st.st_ino;
  };
  ASSERT_OK(cache_.Store(key_, Entry(1)));
  ASSERT_OK(cache_.StoreRunHistory(kRunA, History(key_, key_)));
  const ino_t first = inode();
  Backdate(HistoryPath(kRunA), 10 * kDay);
  ASSERT_OK(cache_.StoreRunHistory(kRunA, History(key_, key_)));
  EXPECT_EQ(inode(), first) << "not rewritten (a rewrite renames a new file into place)";
  auto removed = cache_.Gc(7);
  ASSERT_OK(removed);
  EXPECT_EQ(removed->histories, 0) << "renewed by the second store";
  const RunHistory changed = History(key_, "fedcba9876543210fedcba9876543210");
  ASSERT_OK(cache_.StoreRunHistory(kRunA, changed));
  auto loaded = cache_.LoadRunHistory(kRunA);
  ASSERT_OK(loaded);
  ASSERT_TRUE(loaded->has_value());
  EXPECT_TRUE(**loaded == changed);
}

TEST_F(RunHistoryTest, DamageIsCorruptionNamingTheFile) {
  ASSERT_OK(cache_.StoreRunHistory(kRunA, History(key_, key_)));
  std::string bytes = ValueOrThrow(Env::Default()->ReadFile(HistoryPath(kRunA)));
  bytes.back() ^= 1;
  ASSERT_OK(Env::Default()->WriteFileAtomic(HistoryPath(kRunA), bytes));
  auto loaded = cache_.LoadRunHistory(kRunA);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), StatusCode::kCorruption);
  EXPECT_NE(loaded.status().message().find(HistoryPath(kRunA)), std::string::npos) << loaded.status().message();
  EXPECT_NE(loaded.status().message().find("checksum mismatch"), std::string::npos);
  // A cache entry is no history: same frame, other magic.
  ASSERT_OK(cache_.Store(key_, Entry(1)));
  Result<RunHistory> entry = DecodeRunHistory(Read(key_));
  ASSERT_FALSE(entry.ok());
  EXPECT_NE(entry.status().message().find("bad magic"), std::string::npos);
}

TEST_F(RunHistoryTest, GcPrunesHistoriesOldOrWithoutEntriesOrUnreadable) {
  const std::string kept_key = "0a" + std::string(30, '1'), gone_key = "0b" + std::string(30, '2');
  ASSERT_OK(cache_.Store(kept_key, Entry(1)));
  ASSERT_OK(cache_.StoreRunHistory(kRunA, History(gone_key, kept_key)));  // one entry left: kept
  ASSERT_OK(cache_.StoreRunHistory(kRunB, History(gone_key, gone_key)));  // none left: pruned
  const std::string old_run = "cccc0000000000000000000000000003", legacy = dir_ + "/runs/dddd.json";
  ASSERT_OK(cache_.StoreRunHistory(old_run, History(kept_key, kept_key)));
  Backdate(HistoryPath(old_run), 10 * kDay);                                          // not run for 10 days
  ASSERT_OK(Env::Default()->WriteFileAtomic(legacy, R"({"train": {"kind": "x"}})"));  // an older seqflow's
  const std::string stale_tmp = HistoryPath(kRunA) + ".tmp.1.0";
  ASSERT_OK(Env::Default()->WriteFileAtomic(stale_tmp, "dead writer"));
  Backdate(stale_tmp, 2 * 3600);

  auto removed = cache_.Gc(7);
  ASSERT_OK(removed);
  EXPECT_EQ(removed->entries, 0);
  EXPECT_EQ(removed->histories, 3);
  EXPECT_TRUE(Env::Default()->Exists(HistoryPath(kRunA)));
  EXPECT_FALSE(Env::Default()->Exists(HistoryPath(kRunB)));
  EXPECT_FALSE(Env::Default()->Exists(HistoryPath(old_run)));
  EXPECT_FALSE(Env::Default()->Exists(legacy));
  EXPECT_FALSE(Env::Default()->Exists(stale_tmp));

  // Once gc removes the last entry a history names, the history goes in the same pass.
  Backdate(PathOf(kept_key), 10 * kDay);
  removed = cache_.Gc(7);
  ASSERT_OK(removed);
  EXPECT_EQ(removed->entries, 1);
  EXPECT_EQ(removed->histories, 1);
  EXPECT_FALSE(Env::Default()->Exists(HistoryPath(kRunA)));
}

}  // namespace run_history_test
}  // namespace seqflow::testkit

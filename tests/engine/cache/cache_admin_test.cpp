// List, Gc, RemoveKind, last-use tracking and the default directory.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "tests/engine/cache/cache_fixture.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::testkit {
namespace cache_admin_test {

constexpr double kDay = 86400;

std::string Key(int i) {
  char buf[33];
  std::snprintf(buf, sizeof buf, "%02xcafe%026x", i % 3, i);  // shards 00, 01, 02
  return buf;
}

TEST_F(CacheTest, ListShowsEntriesAndIgnoresTempFiles) {
  for (int i = 0; i < 5; ++i) ASSERT_OK(cache_.Store(Key(i), Entry(i, i < 2 ? "hmm.em" : "crf.train")));
  ASSERT_OK(Env::Default()->WriteFileAtomic(PathOf(Key(0)) + ".tmp.999.0", "half an entry"));
  ASSERT_OK(Env::Default()->WriteFileAtomic(dir_ + "/README", "not an entry"));
  auto listing = cache_.List();
  ASSERT_OK(listing);
  ASSERT_EQ(listing->size(), 5u);
  std::map<std::string, std::string> kinds;
  for (const CacheListing& l : *listing) {
    kinds[l.key] = l.kind;
    EXPECT_EQ(l.artifact_type, "TestValue");
    EXPECT_EQ(l.bytes, Read(l.key).size());
    EXPECT_GT(l.mtime_ns, 0);
  }
  EXPECT_EQ(kinds[Key(1)], "hmm.em");
  EXPECT_EQ(kinds[Key(4)], "crf.train");
}

TEST_F(CacheTest, ListShowsCorruptEntries) {
  ASSERT_OK(cache_.Store(key_, Entry(1)));
  Write(key_, "garbage");
  auto listing = cache_.List();
  ASSERT_OK(listing);
  ASSERT_EQ(listing->size(), 1u);
  EXPECT_EQ((*listing)[0].kind, "(corrupt)");
}

TEST_F(CacheTest, MissingDirectoryIsAnEmptyCache) {
  Cache empty(dir_ + "/nowhere", &TestRegistry(), Env::Default());
  auto listing = empty.List();
  ASSERT_OK(listing);
  EXPECT_TRUE(listing->empty());
  auto removed = empty.Gc(0);
  ASSERT_OK(removed);
  EXPECT_EQ(removed->entries, 0);
  EXPECT_EQ(removed->histories, 0);
}

TEST_F(CacheTest, LoadRecordsLastUse) {
  ASSERT_OK(cache_.Store(key_, Entry(1)));
  Backdate(PathOf(key_), 10 * kDay);
  ASSERT_OK(cache_.Load(key_));
  auto st = Env::Default()->Stat(PathOf(key_));
  ASSERT_OK(st);
  EXPECT_GT(st->mtime_ns, (std::time(nullptr) - kDay) * 1000000000LL);
}

TEST_F(CacheTest, GcRemovesEntriesUnusedForKeepDaysAndStaleTempFiles) {
  for (int i = 0; i < 4; ++i) ASSERT_OK(cache_.Store(Key(i), Entry(i)));
  Backdate(PathOf(Key(0)), 10 * kDay);
  Backdate(PathOf(Key(1)), 3 * kDay);
  std::string stale_tmp = PathOf(Key(2)) + ".tmp.123.0", fresh_tmp = PathOf(Key(3)) + ".tmp.456.1";
  ASSERT_OK(Env::Default()->WriteFileAtomic(stale_tmp, "dead writer"));
  ASSERT_OK(Env::Default()->WriteFileAtomic(fresh_tmp, "live writer"));
  Backdate(stale_tmp, 2 * 3600);

  auto removed = cache_.Gc(7);
  ASSERT_OK(removed);
  EXPECT_EQ(removed->entries, 1);
  EXPECT_FALSE(cache_.Contains(Key(0)));
  EXPECT_TRUE(cache_.Contains(Key(1)));
  EXPECT_FALSE(Env::Default()->Exists(stale_tmp));
  EXPECT_TRUE(Env::Default()->Exists(fresh_tmp));

  removed = cache_.Gc(1);
  ASSERT_OK(removed);
  EXPECT_EQ(removed->entries, 1);
  EXPECT_FALSE(cache_.Contains(Key(1)));
  EXPECT_TRUE(cache_.Contains(Key(2)));
  EXPECT_EQ(cache_.Gc(-1).status().code(), StatusCode::kInvalid);
}

TEST_F(CacheTest, GcRemovesOldTaskFilesFinishedCheckpointsDeadLocksAndOldSweeps) {
  Env* env = Env::Default();
  auto write = [&](const std::string& relative, double age_seconds) {
    const std::string path = dir_ + "/" + relative;
    EXPECT_OK(env->CreateDirs(DirName(path)));
    EXPECT_OK(env->WriteFileAtomic(path, "x"));
    if (age_seconds > 0) Backdate(path, age_seconds);
    return path;
  };
  ASSERT_OK(cache_.Store(Key(0), Entry(0)));
  const std::string old_manifest = write("tasks/" + Key(1) + ".json", 10 * kDay);
  const std::string new_manifest = write("tasks/" + Key(2) + ".json", 0);
  const std::string old_record = write("status/" + Key(1) + ".status", 10 * kDay);
  const std::string finished_checkpoint = write("checkpoints/" + Key(0) + ".sfc", 0);  // its entry exists
  const std::string live_checkpoint = write("checkpoints/" + Key(3) + ".sfc", 0);
  const std::string dead_lock = write("locks/" + Key(4) + ".lock", 2 * 3600);
  const std::string live_lock = write("locks/" + Key(5) + ".lock", 5);
  write("sweeps/old/tasks.tsv", 10 * kDay);
  write("sweeps/old/logs/1_0.err", 10 * kDay);
  write("sweeps/recent/tasks.tsv", 10 * kDay);
  write("sweeps/recent/logs/2_0.err", 0);  // still written to: its sweep may be running

  auto removed = cache_.Gc(7);
  ASSERT_OK(removed);
  EXPECT_EQ(removed->task_files, 4);
  EXPECT_EQ(removed->sweeps, 1);
  for (const std::string& gone : {old_manifest, old_record, finished_checkpoint, dead_lock})
    EXPECT_FALSE(env->Exists(gone)) << gone;
  for (const std::string& kept : {new_manifest, live_checkpoint, live_lock}) EXPECT_TRUE(env->Exists(kept)) << kept;
  EXPECT_FALSE(env->Exists(dir_ + "/sweeps/old"));
  EXPECT_TRUE(env->Exists(dir_ + "/sweeps/recent/tasks.tsv"));
  EXPECT_TRUE(cache_.Contains(Key(0)));
}

TEST_F(CacheTest, RemoveKindRemovesOnlyThatKind) {
  for (int i = 0; i < 6; ++i) ASSERT_OK(cache_.Store(Key(i), Entry(i, i % 2 ? "hmm.em" : "crf.train")));
  auto removed = cache_.RemoveKind("hmm.em");
  ASSERT_OK(removed);
  EXPECT_EQ(*removed, 3);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(cache_.Contains(Key(i)), i % 2 == 0) << i;
  removed = cache_.RemoveKind("hmm.em");
  ASSERT_OK(removed);
  EXPECT_EQ(*removed, 0);
}

TEST(CacheDefaultDirTest, EnvironmentVariableElseWorkingDirectory) {
  std::string cwd = std::filesystem::current_path().string();
  ::setenv("SEQFLOW_CACHE", "/var/tmp/sf-cache", 1);
  EXPECT_EQ(Cache::DefaultDir(), "/var/tmp/sf-cache");
  ::setenv("SEQFLOW_CACHE", "rel/cache", 1);
  EXPECT_EQ(Cache::DefaultDir(), cwd + "/rel/cache");
  ::unsetenv("SEQFLOW_CACHE");
  EXPECT_EQ(Cache::DefaultDir(), cwd + "/.seqflow/cache");
}

}  // namespace cache_admin_test
}  // namespace seqflow::testkit

// FileHasher: content hashes memoised by (path, size, mtime), safe under concurrent use.
#include <sys/stat.h>

#include <atomic>
#include <filesystem>
#include <thread>

#include "engine/base/hash.h"
#include "tests/engine/graph/graph_fixture.h"

namespace seqflow::testutil {
namespace file_hasher_test {

// Counts reads and forwards everything to the POSIX Env.
class CountingEnv final : public Env {
 public:
  Result<std::string> ReadFile(const std::string& path) override {
    ++reads;
    return Env::Default()->ReadFile(path);
  }
  Status WriteFileAtomic(const std::string& path, std::string_view data) override {
    return Env::Default()->WriteFileAtomic(path, data);
  }
  Result<FileStat> Stat(const std::string& path) override { return Env::Default()->Stat(path); }
  bool Exists(const std::string& path) override { return Env::Default()->Exists(path); }
  Status CreateDirs(const std::string& path) override { return Env::Default()->CreateDirs(path); }
  Result<std::vector<std::string>> ListDir(const std::string& path) override { return Env::Default()->ListDir(path); }
  Status RemoveFile(const std::string& path) override { return Env::Default()->RemoveFile(path); }
  Status RemoveDir(const std::string& path) override { return Env::Default()->RemoveDir(path); }
  Status CreateExclusive(const std::string& path, std::string_view data, bool* created) override {
    return Env::Default()->CreateExclusive(path, data, created);
  }
  Status Rename(const std::string& from, const std::string& to) override { return Env::Default()->Rename(from, to); }

  std::atomic<int> reads{0};
};

class FileHasherTest : public PipelineTest {};

TEST_F(FileHasherTest, ReadsOnceUntilSizeOrMtimeChange) {
  std::string path = Write("f.txt", "abc");
  CountingEnv env;
  FileHasher hasher(&env);
  auto first = hasher.Hash(path);
  ASSERT_OK(first);
  EXPECT_EQ(*first, HashHex("abc"));
  ASSERT_OK(hasher.Hash(path));
  EXPECT_EQ(env.reads, 1);
  std::filesystem::last_write_time(path, std::filesystem::last_write_time(path) + std::chrono::seconds(3));
  auto touched = hasher.Hash(path);
  ASSERT_OK(touched);
  EXPECT_EQ(env.reads, 2);
  EXPECT_EQ(*touched, *first);
  Write("f.txt", "abcd");
  auto grown = hasher.Hash(path);
  ASSERT_OK(grown);
  EXPECT_EQ(*grown, HashHex("abcd"));
  EXPECT_EQ(env.reads, 3);
}

TEST_F(FileHasherTest, MissingFileNamesTheReason) {
  FileHasher hasher(Env::Default());
  auto r = hasher.Hash(dir_ + "/none");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kIo);
  EXPECT_EQ(r.status().message(), "cannot read file '" + dir_ + "/none': No such file or directory");
}

// Read a MiB at a time (a corpus larger than memory can be planned), with the hash of the whole
// file: the keys of every cached entry stay what they were.
TEST_F(FileHasherTest, ALargeFileIsHashedInChunksToTheWholeFilesHash) {
  std::string content;
  for (int64_t i = 0; content.size() < (size_t{7} << 19); ++i) content += std::to_string(i * 7919) + (i % 13 ? " " : "\n");
  const std::string path = Write("large.txt", content);
  FileHasher hasher(Env::Default());
  EXPECT_EQ(ValueOrThrow(hasher.Hash(path)), HashHex(content));
}

TEST_F(FileHasherTest, AFifoIsRefusedNotWaitedFor) {
  ASSERT_EQ(::mkfifo((dir_ + "/fifo").c_str(), 0600), 0);
  FileHasher hasher(Env::Default());
  auto r = hasher.Hash(dir_ + "/fifo");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("not a regular file"), std::string::npos) << r.status().message();
}

TEST_F(FileHasherTest, ConcurrentCallersAgree) {
  std::vector<std::string> paths;
  for (int i = 0; i < 4; ++i) paths.push_back(Write(std::to_string(i) + ".txt", std::string(1000 + i, 'x')));
  FileHasher hasher(Env::Default());
  std::vector<std::vector<std::string>> seen(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 50; ++round)
        for (const auto& p : paths) {
          Result<std::string> hash = hasher.Hash(p);
          seen[t].push_back(hash.ok() ? *hash : hash.status().ToString());
        }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 8; ++t) {
    ASSERT_EQ(seen[t].size(), 200u);
    for (size_t i = 0; i < seen[t].size(); ++i) EXPECT_EQ(seen[t][i], HashHex(std::string(1000 + i % 4, 'x')));
  }
}

}  // namespace file_hasher_test
}  // namespace seqflow::testutil

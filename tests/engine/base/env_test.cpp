#include "engine/base/env.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <thread>

#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace env_test {

class EnvTest : public ::testing::Test {
 protected:
  EnvTest() : dir_(testutil::MakeTempDir("seqflow-env")) {}
  ~EnvTest() override { std::filesystem::remove_all(dir_); }
  Env* env_ = Env::Default();
  std::string dir_;
};

TEST_F(EnvTest, WriteAtomicThenReadRoundTripsBinary) {
  std::string path = JoinPath(dir_, "f.bin");
  std::string data("a\0b\xff\n", 5);
  ASSERT_OK(env_->WriteFileAtomic(path, data));
  auto read = env_->ReadFile(path);
  ASSERT_OK(read);
  EXPECT_EQ(*read, data);
  ASSERT_OK(env_->WriteFileAtomic(path, "second"));
  EXPECT_EQ(*env_->ReadFile(path), "second");
  auto names = env_->ListDir(dir_);
  ASSERT_OK(names);
  EXPECT_EQ(*names, std::vector<std::string>{"f.bin"});  // no temp file left behind
}

// The file reused is the one renamed (same inode: no new file), cut to the new length.
TEST_F(EnvTest, WriteIntoAFileReusesItsInodeAndCutsItToLength) {
  const std::string spare = JoinPath(dir_, "spare"), path = JoinPath(dir_, "f");
  ASSERT_OK(env_->WriteFileAtomic(spare, std::string(5000, 's')));
  struct stat before {};
  ASSERT_EQ(::stat(spare.c_str(), &before), 0);
  ASSERT_OK(env_->WriteFileAtomicPartsInto(path, {"ab", "cd"}, spare));
  struct stat after {};
  ASSERT_EQ(::stat(path.c_str(), &after), 0);
  EXPECT_EQ(after.st_ino, before.st_ino);
  EXPECT_EQ(*env_->ReadFile(path), "abcd");
  EXPECT_EQ(*env_->ListDir(dir_), std::vector<std::string>{"f"});
  // No file to reuse (or none named): a new file.
  ASSERT_OK(env_->WriteFileAtomicPartsInto(JoinPath(dir_, "g"), {"new"}, JoinPath(dir_, "missing")));
  ASSERT_OK(env_->WriteFileAtomicPartsInto(JoinPath(dir_, "h"), {"new"}, ""));
  EXPECT_EQ(*env_->ReadFile(JoinPath(dir_, "g")), "new");
  EXPECT_EQ(*env_->ListDir(dir_), (std::vector<std::string>{"f", "g", "h"}));
}

TEST_F(EnvTest, MissingFilesAreErrorsNamingThePath) {
  std::string path = JoinPath(dir_, "absent");
  auto read = env_->ReadFile(path);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.status().message().find(path), std::string::npos);
  EXPECT_FALSE(env_->Exists(path));
  EXPECT_FALSE(env_->Stat(path).ok());
  EXPECT_FALSE(env_->RemoveFile(path).ok());
  EXPECT_FALSE(env_->WriteFileAtomic(JoinPath(dir_, "no/such/dir/f"), "x").ok());
}

TEST_F(EnvTest, ListDirIsSortedNamesAndStatKnowsDirectories) {
  ASSERT_OK(env_->CreateDirs(JoinPath(dir_, "sub/deeper")));
  for (const char* name : {"b", "a", "c"}) ASSERT_OK(env_->WriteFileAtomic(JoinPath(dir_, name), name));
  auto names = env_->ListDir(dir_);
  ASSERT_OK(names);
  EXPECT_EQ(*names, (std::vector<std::string>{"a", "b", "c", "sub"}));
  EXPECT_TRUE(env_->Stat(JoinPath(dir_, "sub"))->is_dir);
  EXPECT_EQ(env_->Stat(JoinPath(dir_, "a"))->size, 1u);
  ASSERT_OK(env_->RemoveFile(JoinPath(dir_, "a")));
  EXPECT_FALSE(env_->Exists(JoinPath(dir_, "a")));
}

TEST_F(EnvTest, TouchMovesMtimeForward) {
  std::string path = JoinPath(dir_, "t");
  ASSERT_OK(env_->WriteFileAtomic(path, "x"));
  int64_t before = env_->Stat(path)->mtime_ns;
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_OK(env_->Touch(path));
  EXPECT_GT(env_->Stat(path)->mtime_ns, before);
  EXPECT_FALSE(env_->Touch(JoinPath(dir_, "absent")).ok());
}

TEST(PathTest, JoinDirBase) {
  EXPECT_EQ(JoinPath("a", "b"), "a/b");
  EXPECT_EQ(JoinPath("a/", "b"), "a/b");
  EXPECT_EQ(JoinPath("a", "/abs"), "/abs");
  EXPECT_EQ(JoinPath("", "b"), "b");
  EXPECT_EQ(DirName("a/b/c.txt"), "a/b");
  EXPECT_EQ(DirName("c.txt"), ".");
  EXPECT_EQ(DirName("/c.txt"), "/");
  EXPECT_EQ(BaseName("a/b/c.txt"), "c.txt");
  EXPECT_EQ(BaseName("c.txt"), "c.txt");
  EXPECT_TRUE(IsAbsolutePath("/x"));
  EXPECT_FALSE(IsAbsolutePath("x"));
}

TEST(PathTest, ResolvePathFoldsDotsAgainstTheBase) {
  EXPECT_EQ(ResolvePath("/work/main/pipelines", "../../shared/data/x.conll"), "/work/shared/data/x.conll");
  EXPECT_EQ(ResolvePath("/work/main", "./a/./b"), "/work/main/a/b");
  EXPECT_EQ(ResolvePath("/work/main", "/etc/../tmp/f"), "/tmp/f");
  EXPECT_EQ(ResolvePath("/", "a"), "/a");
}

// ReadFileInto fills the spans in order from the file; a file of another size is an error naming
// it. ReadFileChunks hands over every byte in order, and stops at the consumer's error.
TEST_F(EnvTest, ReadFileIntoSpansAndInChunks) {
  const std::string path = JoinPath(dir_, "f");
  std::string data;
  for (int i = 0; i < 300000; ++i) data += static_cast<char>(i % 251);
  ASSERT_OK(env_->WriteFileAtomic(path, data));
  std::string head(28, '-'), body(data.size() - 28, '-');
  ASSERT_OK(env_->ReadFileInto(path, {std::span<char>(head), std::span<char>(body)}));
  EXPECT_EQ(head + body, data);
  std::string more(data.size() + 1, '-');
  Status too_long = env_->ReadFileInto(path, {std::span<char>(more)});
  EXPECT_FALSE(too_long.ok());
  EXPECT_NE(too_long.message().find(path), std::string::npos) << too_long.message();
  EXPECT_FALSE(env_->ReadFileInto(JoinPath(dir_, "missing"), {std::span<char>(head)}).ok());
  std::string chunks;
  size_t largest = 0;
  ASSERT_OK(env_->ReadFileChunks(path, 4096, [&](std::string_view chunk) {
    chunks += chunk, largest = std::max(largest, chunk.size());
    return Status::Ok();
  }));
  EXPECT_EQ(chunks, data);
  EXPECT_LE(largest, 4096u);
  int calls = 0;
  EXPECT_EQ(env_->ReadFileChunks(path, 4096, [&](std::string_view) {
              ++calls;
              return Status::Corruption("stop");
            }).code(), StatusCode::kCorruption);
  EXPECT_EQ(calls, 1);
}

}  // namespace env_test
}  // namespace seqflow

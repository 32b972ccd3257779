// The POSIX Env under injected faults (tests/testutil/fault_env.h): a write that fails at any
// step keeps the old file and leaves no temp file; a directory fsync that fails is no error (the
// file is whole under its name); an exclusive create whose text cannot be written leaves no
// file; CreateDirs names the directory it could not make.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "engine/base/env.h"
#include "tests/testutil/fault_env.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace env_faults_test {

using testutil::Fault;
using testutil::FaultEnv;
using testutil::FileOp;

class EnvFaultsTest : public ::testing::Test {
 protected:
  EnvFaultsTest() : dir_(testutil::MakeTempDir("seqflow-envfaults")) {}
  std::vector<std::string> Names() { return ValueOrThrow(env_.ListDir(dir_)); }
  FaultEnv env_;
  std::string dir_;
};

TEST_F(EnvFaultsTest, AnAtomicWriteFailingAtAnyStepKeepsTheOldFileAndLeavesNoTemp) {
  const std::string path = JoinPath(dir_, "f");
  ASSERT_OK(env_.WriteFileAtomic(path, "old"));
  for (FileOp op : {FileOp::kCreate, FileOp::kWrite, FileOp::kSync, FileOp::kRename}) {
    for (int error : {ENOSPC, EIO}) {
      SCOPED_TRACE(std::string(testutil::FileOpName(op)) + ": " + std::strerror(error));
      env_.Clear();
      env_.Inject(Fault{op, path, 1, error});
      Status written = env_.WriteFileAtomic(path, std::string(1000, 'n'));
      ASSERT_FALSE(written.ok());
      EXPECT_EQ(written.code(), StatusCode::kIo);
      EXPECT_NE(written.message().find(path), std::string::npos) << written.ToString();
      EXPECT_NE(written.message().find(std::strerror(error)), std::string::npos) << written.ToString();
      EXPECT_EQ(ValueOrThrow(env_.ReadFile(path)), "old");
      EXPECT_EQ(Names(), std::vector<std::string>{"f"});
    }
  }
  EXPECT_EQ(env_.injected(), 8);
}

// Written into a file it reuses: a fault at any step leaves no file under the new name, and the
// reused file (whose bytes are now mixed) is gone too.
TEST_F(EnvFaultsTest, AWriteIntoAReusedFileFailingAtAnyStepLeavesNeitherFile) {
  const std::string path = JoinPath(dir_, "f"), spare = JoinPath(dir_, "spare");
  for (FileOp op : {FileOp::kWrite, FileOp::kSync, FileOp::kRename}) {
    SCOPED_TRACE(testutil::FileOpName(op));
    env_.Clear();
    ASSERT_OK(env_.WriteFileAtomic(spare, std::string(3000, 's')));
    env_.Inject(Fault{op, op == FileOp::kRename ? path : spare, 1, EIO});
    Status written = env_.WriteFileAtomicPartsInto(path, {std::string(1000, 'n')}, spare);
    ASSERT_FALSE(written.ok());
    EXPECT_EQ(written.code(), StatusCode::kIo);
    EXPECT_TRUE(Names().empty());
  }
  // Cutting the reused file to length is a write: it fails like one.
  env_.Clear();
  ASSERT_OK(env_.WriteFileAtomic(spare, std::string(3000, 's')));
  env_.Inject(Fault{FileOp::kWrite, spare, 2, ENOSPC});
  EXPECT_FALSE(env_.WriteFileAtomicPartsInto(path, {std::string(1000, 'n')}, spare).ok());
  EXPECT_TRUE(Names().empty());
}

TEST_F(EnvFaultsTest, AFailedDirectoryFsyncStillLeavesTheWholeNewFile) {
  const std::string path = JoinPath(dir_, "f");
  env_.Inject(Fault{FileOp::kSyncDir, dir_, 1, EIO});
  ASSERT_OK(env_.WriteFileAtomic(path, "new"));
  EXPECT_EQ(env_.injected(), 1);
  EXPECT_EQ(ValueOrThrow(env_.ReadFile(path)), "new");
  EXPECT_EQ(Names(), std::vector<std::string>{"f"});
}

TEST_F(EnvFaultsTest, AnExclusiveCreateWhoseTextCannotBeWrittenLeavesNoFile) {
  const std::string path = JoinPath(dir_, "k.lock");
  env_.Inject(Fault{FileOp::kWrite, path, 1, ENOSPC});
  bool created = true;
  Status made = env_.CreateExclusive(path, "host 123\n", &created);
  EXPECT_FALSE(made.ok());
  EXPECT_FALSE(created);
  EXPECT_FALSE(env_.Exists(path));
  ASSERT_OK(env_.CreateExclusive(path, "host 123\n", &created));
  EXPECT_TRUE(created);
  EXPECT_EQ(ValueOrThrow(env_.ReadFile(path)), "host 123\n");
}

TEST_F(EnvFaultsTest, CreateDirsMakesEveryMissingParentAndNamesTheOneItCannot) {
  ASSERT_OK(env_.CreateDirs(JoinPath(dir_, "a/b/c")));
  ASSERT_OK(env_.CreateDirs(JoinPath(dir_, "a/b/c/")));
  EXPECT_TRUE(ValueOrThrow(env_.Stat(JoinPath(dir_, "a/b/c"))).is_dir);
  ASSERT_OK(env_.WriteFileAtomic(JoinPath(dir_, "file"), "x"));
  Status blocked = env_.CreateDirs(JoinPath(dir_, "file/sub"));
  EXPECT_FALSE(blocked.ok());
  EXPECT_NE(blocked.message().find(JoinPath(dir_, "file")), std::string::npos) << blocked.ToString();
  env_.MakeReadOnly(JoinPath(dir_, "a"));
  Status refused = env_.CreateDirs(JoinPath(dir_, "a/x/y"));
  EXPECT_FALSE(refused.ok());
  EXPECT_EQ(refused.message(), "cannot create directory " + JoinPath(dir_, "a/x") + ": Read-only file system");
}

}  // namespace env_faults_test
}  // namespace seqflow

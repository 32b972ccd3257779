#include "tests/testutil/fault_env.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace seqflow::testutil {

const char* FileOpName(FileOp op) {
  switch (op) {
    case FileOp::kRead:
      return "read";
    case FileOp::kCreate:
      return "create";
    case FileOp::kWrite:
      return "write";
    case FileOp::kSync:
      return "fsync";
    case FileOp::kSyncDir:
      return "directory fsync";
    case FileOp::kRename:
      return "rename";
    case FileOp::kRemove:
      return "remove";
    case FileOp::kMkdir:
      return "mkdir";
    case FileOp::kTouch:
      return "touch";
  }
  return "?";
}

FaultEnv::FaultEnv(uint64_t seed) : random_(seed), calls_(this), posix_(NewPosixEnv(&calls_)) {}

void FaultEnv::Inject(Fault fault) {
  std::lock_guard<std::mutex> lock(mu_);
  rules_.push_back(Rule{std::move(fault)});
}

void FaultEnv::MakeReadOnly(const std::string& dir, int error) {
  std::lock_guard<std::mutex> lock(mu_);
  rules_.push_back(Rule{Fault{FileOp::kCreate, dir, 0, error}, /*read_only=*/true});
}

void FaultEnv::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  rules_.clear();
}

void FaultEnv::SetHook(std::function<void(FileOp, const std::string&)> hook) {
  std::lock_guard<std::mutex> lock(mu_);
  hook_ = std::move(hook);
}

int FaultEnv::injected() const {
  std::lock_guard<std::mutex> lock(mu_);
  return injected_;
}

bool FaultEnv::Fails(FileOp op, const std::string& path) {
  std::function<void(FileOp, const std::string&)> hook;
  int error = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    hook = hook_;
    for (Rule& rule : rules_) {
      if (rule.read_only) {
        // Reading, or syncing what exists, changes nothing a read-only mount refuses.
        if (op == FileOp::kRead || op == FileOp::kSync || op == FileOp::kSyncDir ||
            !path.starts_with(rule.fault.path_contains))
          continue;
      } else if (rule.fault.op != op || path.find(rule.fault.path_contains) == std::string::npos) {
        continue;
      }
      ++rule.seen;
      if (error != 0) continue;
      if (rule.fault.probability > 0) {
        if (std::uniform_real_distribution<double>(0, 1)(random_) < rule.fault.probability)
          error = random_() % 2 == 0 ? ENOSPC : EIO;
      } else if (rule.fault.nth == 0 || rule.seen == rule.fault.nth) {
        error = rule.fault.error;
      }
    }
    if (error != 0) ++injected_;
  }
  if (hook) hook(op, path);
  errno = error;
  return error != 0;
}

int FaultEnv::Calls::Open(const std::string& path, int flags, int mode) {
  if ((flags & O_CREAT) != 0 && env_->Fails(FileOp::kCreate, path)) return -1;
  return FileCalls::Open(path, flags, mode);
}

ssize_t FaultEnv::Calls::Read(int fd, const std::string& path, char* data, size_t size) {
  if (env_->Fails(FileOp::kRead, path)) return -1;
  return FileCalls::Read(fd, path, data, size);
}

ssize_t FaultEnv::Calls::Write(int fd, const std::string& path, const char* data, size_t size) {
  if (env_->Fails(FileOp::kWrite, path)) {
    int error = errno;
    if (size > 1) (void)FileCalls::Write(fd, path, data, size / 2);
    errno = error;
    return -1;
  }
  return FileCalls::Write(fd, path, data, size);
}

int FaultEnv::Calls::Fsync(int fd, const std::string& path) {
  struct stat st {};
  const bool dir = ::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
  if (env_->Fails(dir ? FileOp::kSyncDir : FileOp::kSync, path)) return -1;
  return FileCalls::Fsync(fd, path);
}

int FaultEnv::Calls::Ftruncate(int fd, const std::string& path, off_t length) {
  if (env_->Fails(FileOp::kWrite, path)) return -1;
  return FileCalls::Ftruncate(fd, path, length);
}

int FaultEnv::Calls::Rename(const std::string& from, const std::string& to) {
  if (env_->Fails(FileOp::kRename, to)) return -1;
  return FileCalls::Rename(from, to);
}

int FaultEnv::Calls::Unlink(const std::string& path) {
  if (env_->Fails(FileOp::kRemove, path)) return -1;
  return FileCalls::Unlink(path);
}

int FaultEnv::Calls::Mkdir(const std::string& path, int mode) {
  if (env_->Fails(FileOp::kMkdir, path)) return -1;
  return FileCalls::Mkdir(path, mode);
}

int FaultEnv::Calls::Utimens(const std::string& path) {
  if (env_->Fails(FileOp::kTouch, path)) return -1;
  return FileCalls::Utimens(path);
}

}  // namespace seqflow::testutil

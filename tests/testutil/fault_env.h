// FaultEnv: the POSIX Env with faults injected into its system calls (leveldb's
// FaultInjectionTestEnv, for seqflow's Env). A rule fails the Nth read, create, write, fsync,
// rename, remove, mkdir or touch of a path containing a pattern with an errno (ENOSPC, EIO, EROFS...), so
// the Env's own error handling runs and its Status reads as the kernel's would. A failing write
// first writes half its buffer, as a disk filling up mid-write leaves a partial file.
// A hook sees every call before it is made (to count calls, or to remove the cache directory at
// an exact step).
// Thread safety: all methods may be called concurrently.
#pragma once

#include <cerrno>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "engine/base/env.h"

namespace seqflow::testutil {

// kSync is a file's fsync; kSyncDir the fsync of a directory after a rename into it.
enum class FileOp { kRead, kCreate, kWrite, kSync, kSyncDir, kRename, kRemove, kMkdir, kTouch };
const char* FileOpName(FileOp op);

struct Fault {
  FileOp op = FileOp::kWrite;
  std::string path_contains;  // "" matches every path; a rename matches on its target
  int nth = 1;                // fail the nth matching call (1-based); 0 fails every one
  int error = ENOSPC;
  // When > 0, each matching call fails with this probability instead (nth is ignored), drawn
  // from the FaultEnv's seeded generator, and its error is ENOSPC or EIO at even odds.
  double probability = 0;
};

class FaultEnv final : public Env {
 public:
  explicit FaultEnv(uint64_t seed = 0);

  void Inject(Fault fault);
  // Every change below `dir` (create, write, rename, remove, mkdir, touch) fails with `error`;
  // reads still work, as on a read-only mount (EROFS) or a directory without write permission
  // (EACCES).
  void MakeReadOnly(const std::string& dir, int error = EROFS);
  // Removes every rule; counts of calls made so far are kept.
  void Clear();
  void SetHook(std::function<void(FileOp, const std::string&)> hook);
  // How many calls were failed so far.
  int injected() const;

  Result<std::string> ReadFile(const std::string& path) override { return posix_->ReadFile(path); }
  Status WriteFileAtomic(const std::string& path, std::string_view data) override {
    return posix_->WriteFileAtomic(path, data);
  }
  Status WriteFileAtomicParts(const std::string& path, const std::vector<std::string_view>& parts) override {
    return posix_->WriteFileAtomicParts(path, parts);
  }
  Status WriteFileAtomicPartsInto(const std::string& path, const std::vector<std::string_view>& parts,
                                  const std::string& reuse) override {
    return posix_->WriteFileAtomicPartsInto(path, parts, reuse);
  }
  Result<FileStat> Stat(const std::string& path) override { return posix_->Stat(path); }
  bool Exists(const std::string& path) override { return posix_->Exists(path); }
  Status CreateDirs(const std::string& path) override { return posix_->CreateDirs(path); }
  Result<std::vector<std::string>> ListDir(const std::string& path) override { return posix_->ListDir(path); }
  Status RemoveFile(const std::string& path) override { return posix_->RemoveFile(path); }
  Status RemoveDir(const std::string& path) override { return posix_->RemoveDir(path); }
  Status CreateExclusive(const std::string& path, std::string_view data, bool* created) override {
    return posix_->CreateExclusive(path, data, created);
  }
  Status Rename(const std::string& from, const std::string& to) override { return posix_->Rename(from, to); }
  Status Touch(const std::string& path) override { return posix_->Touch(path); }

 private:
  class Calls final : public FileCalls {
   public:
    explicit Calls(FaultEnv* env) : env_(env) {}
    int Open(const std::string& path, int flags, int mode) override;
    ssize_t Read(int fd, const std::string& path, char* data, size_t size) override;
    ssize_t Write(int fd, const std::string& path, const char* data, size_t size) override;
    int Fsync(int fd, const std::string& path) override;
    int Ftruncate(int fd, const std::string& path, off_t length) override;
    int Rename(const std::string& from, const std::string& to) override;
    int Unlink(const std::string& path) override;
    int Mkdir(const std::string& path, int mode) override;
    int Utimens(const std::string& path) override;

   private:
    FaultEnv* env_;
  };
  struct Rule {
    Fault fault;
    bool read_only = false;  // matches every changing op below fault.path_contains (a prefix)
    int seen = 0;
  };
  // Runs the hook; true (errno set) when a rule fails this call.
  bool Fails(FileOp op, const std::string& path);

  mutable std::mutex mu_;
  std::vector<Rule> rules_;
  std::function<void(FileOp, const std::string&)> hook_;
  int injected_ = 0;
  std::mt19937_64 random_;
  Calls calls_;
  std::unique_ptr<Env> posix_;
};

}  // namespace seqflow::testutil

// Env: the one door through which seqflow touches files (leveldb's Env). The cache, readers
// and the CLI go through it, so tests can inject faults or use memory instead of disk.
// Thread safety: implementations must be safe for concurrent use.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"

namespace seqflow {

struct FileStat {
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  bool is_dir = false;
  bool is_special = false;  // a FIFO, device or socket: reading it may block or never end
};

// The wall clock in nanoseconds since the epoch: the scale of FileStat::mtime_ns.
int64_t NowNs();

class Env {
 public:
  virtual ~Env() = default;

  // The process-wide POSIX environment. Never deleted.
  static Env* Default();

  virtual Result<std::string> ReadFile(const std::string& path) = 0;
  // Appends the file's bytes to *out (left as it was on error): a caller joining files (a
  // checkpoint's pieces) reads each into place instead of into a string of its own first. The
  // default appends ReadFile's string.
  virtual Status AppendFile(const std::string& path, std::string* out);
  // Reads the file into `spans`, in order and straight from the file (a checkpoint's piece into
  // the kernel's memory, not through a buffer); an error naming the file when its size is not
  // their total. The default copies ReadFile's string.
  virtual Status ReadFileInto(const std::string& path, const std::vector<std::span<char>>& spans);
  // Hands the file's bytes to `consume` in order, up to `chunk_bytes` at a time, through one buffer
  // (a piece checked against its hash without holding it); stops at consume's first error. The
  // default slices ReadFile's string.
  virtual Status ReadFileChunks(const std::string& path, size_t chunk_bytes,
                                const std::function<Status(std::string_view)>& consume);
  // Writes `data` to a temporary file beside `path`, fsyncs it, renames it onto `path` and
  // fsyncs the directory: readers see the old file or the whole new one, never a part.
  virtual Status WriteFileAtomic(const std::string& path, std::string_view data) = 0;
  // The same for the concatenation of `parts`, written from where they are (a checkpoint of
  // hundreds of MB is not copied into one buffer). The default joins them.
  virtual Status WriteFileAtomicParts(const std::string& path, const std::vector<std::string_view>& parts);
  // The same, written over the file `reuse` in place (then cut to length) instead of a new
  // temporary file, which is renamed onto `path`: rewriting a file of the same size allocates no
  // blocks in the filesystem and no pages in the page cache (an fsynced 213 MB checkpoint: 0.05 s
  // of sys CPU against 0.12-0.15 s into a new file). REQUIRES: nothing reads or names `reuse` (a
  // crash leaves its bytes mixed). With `reuse` empty or missing, a new file; the default
  // removes `reuse` and writes a new file.
  virtual Status WriteFileAtomicPartsInto(const std::string& path, const std::vector<std::string_view>& parts,
                                          const std::string& reuse);
  virtual Result<FileStat> Stat(const std::string& path) = 0;
  virtual bool Exists(const std::string& path) = 0;
  virtual Status CreateDirs(const std::string& path) = 0;
  // Names (not paths) of the entries of a directory, sorted.
  virtual Result<std::vector<std::string>> ListDir(const std::string& path) = 0;
  virtual Status RemoveFile(const std::string& path) = 0;
  // Removes an empty directory.
  virtual Status RemoveDir(const std::string& path) = 0;
  // Creates `path` holding `data` only if no file of that name exists (O_EXCL: atomic on local
  // filesystems and on NFS v3+); the cache's key locks are built on it. A file already there is
  // not an error: the Status is Ok and *created false.
  virtual Status CreateExclusive(const std::string& path, std::string_view data, bool* created) = 0;
  // Renames within one filesystem (atomic; replaces an existing `to`).
  virtual Status Rename(const std::string& from, const std::string& to) = 0;
  // Makes `path` a symbolic link to `target` (a path relative to `path`'s folder, or absolute),
  // replacing whatever link is there atomically: a reader finds the old link or the new one. The
  // run records' `latest` is one. The default refuses, for Envs without links.
  virtual Status PointLink(const std::string& path, const std::string& target) {
    return Status::Io("cannot link " + path + " to " + target + ": this Env has no symbolic links");
  }
  // Sets the file's modification time to now; the cache records an entry's last use this way
  // (for gc). The default does nothing, for Envs that keep no times.
  virtual Status Touch(const std::string& path) { return Status::Ok(); }
};

// The system calls by which the POSIX Env reads and changes files, each returning what the call
// returns and setting errno when it fails. `path` is the file a descriptor was opened on, so that
// a fault injector (tests/testutil/fault_env.h) can fail the Nth write or fsync of the files it
// names with the errno the kernel would give, and the Env's own handling of it is what gets
// tested.
class FileCalls {
 public:
  virtual ~FileCalls() = default;
  virtual int Open(const std::string& path, int flags, int mode);
  virtual ssize_t Read(int fd, const std::string& path, char* data, size_t size);
  virtual ssize_t Write(int fd, const std::string& path, const char* data, size_t size);
  virtual int Fsync(int fd, const std::string& path);
  virtual int Ftruncate(int fd, const std::string& path, off_t length);
  virtual int Rename(const std::string& from, const std::string& to);
  virtual int Unlink(const std::string& path);
  virtual int Rmdir(const std::string& path);
  virtual int Mkdir(const std::string& path, int mode);
  virtual int Utimens(const std::string& path);
};

// A POSIX Env that reads and changes files only through `calls` (not owned; must outlive the Env).
// Env::Default() is one over the plain calls.
std::unique_ptr<Env> NewPosixEnv(FileCalls* calls);

// Path helpers (pure string manipulation, '/' separated).
std::string JoinPath(std::string_view a, std::string_view b);
std::string DirName(std::string_view path);
std::string BaseName(std::string_view path);
bool IsAbsolutePath(std::string_view path);
// `path` made absolute against `base_dir` if relative, with "." and ".." segments folded.
std::string ResolvePath(std::string_view base_dir, std::string_view path);

}  // namespace seqflow

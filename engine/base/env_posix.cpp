#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>

#include "engine/base/env.h"

namespace seqflow {

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

namespace {

Status ErrnoStatus(const std::string& what, const std::string& path) {
  return Status::Io(what + " " + path + ": " + std::strerror(errno));
}

// Reads the open file `fd` into `spans` in order; an error when its size is not their total.
Status ReadSpans(int fd, const std::string& path, FileCalls* calls, const std::vector<std::span<char>>& spans) {
  size_t total = 0;
  for (std::span<char> span : spans) total += span.size();
  struct stat st {};
  if (::fstat(fd, &st) != 0) return ErrnoStatus("cannot stat", path);
  if (static_cast<size_t>(st.st_size) != total)
    return Status::Io("cannot read " + path + ": " + std::to_string(st.st_size) + " bytes, expected " +
                      std::to_string(total));
  for (std::span<char> span : spans) {
    for (size_t at = 0; at < span.size();) {
      const ssize_t n = calls->Read(fd, path, span.data() + at, span.size() - at);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return ErrnoStatus("cannot read", path);
      if (n == 0) return Status::Io("cannot read " + path + ": it ended early");
      at += static_cast<size_t>(n);
    }
  }
  return Status::Ok();
}

class PosixEnv final : public Env {
 public:
  explicit PosixEnv(FileCalls* calls) : calls_(calls) {}

  Result<std::string> ReadFile(const std::string& path) override {
    std::string data;
    SEQFLOW_RETURN_IF_ERROR(AppendFile(path, &data));
    return data;
  }

  Status AppendFile(const std::string& path, std::string* out) override {
    int fd = calls_->Open(path, O_RDONLY | O_CLOEXEC, 0);
    if (fd < 0) return ErrnoStatus("cannot open", path);
    const size_t start = out->size();
    struct stat st {};
    if (::fstat(fd, &st) == 0 && st.st_size > 0) out->reserve(start + static_cast<size_t>(st.st_size));
    char buf[1 << 16];
    for (;;) {
      ssize_t n = calls_->Read(fd, path, buf, sizeof buf);
      if (n < 0) {
        if (errno == EINTR) continue;
        Status s = ErrnoStatus("cannot read", path);
        ::close(fd);
        out->resize(start);
        return s;
      }
      if (n == 0) break;
      out->append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
    return Status::Ok();
  }

  Status ReadFileInto(const std::string& path, const std::vector<std::span<char>>& spans) override {
    int fd = calls_->Open(path, O_RDONLY | O_CLOEXEC, 0);
    if (fd < 0) return ErrnoStatus("cannot open", path);
    Status read = ReadSpans(fd, path, calls_, spans);
    ::close(fd);
    return read;
  }

  Status ReadFileChunks(const std::string& path, size_t chunk_bytes,
                        const std::function<Status(std::string_view)>& consume) override {
    int fd = calls_->Open(path, O_RDONLY | O_CLOEXEC, 0);
    if (fd < 0) return ErrnoStatus("cannot open", path);
    std::vector<char> buffer(std::max<size_t>(chunk_bytes, 1));
    Status status;
    for (;;) {
      const ssize_t n = calls_->Read(fd, path, buffer.data(), buffer.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) status = ErrnoStatus("cannot read", path);
      if (n <= 0) break;
      status = consume(std::string_view(buffer.data(), static_cast<size_t>(n)));
      if (!status.ok()) break;
    }
    ::close(fd);
    return status;
  }

  Status WriteFileAtomic(const std::string& path, std::string_view data) override {
    return WriteFileAtomicParts(path, {data});
  }

  Status WriteFileAtomicParts(const std::string& path, const std::vector<std::string_view>& parts) override {
    static std::atomic<uint64_t> counter{0};
    std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
    int fd = calls_->Open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return ErrnoStatus("cannot create", tmp);
    return Publish(fd, tmp, path, parts, /*reused=*/false);
  }

  Status WriteFileAtomicPartsInto(const std::string& path, const std::vector<std::string_view>& parts,
                                  const std::string& reuse) override {
    int fd = reuse.empty() ? -1 : calls_->Open(reuse, O_WRONLY | O_CLOEXEC, 0);
    if (fd < 0) return WriteFileAtomicParts(path, parts);
    return Publish(fd, reuse, path, parts, /*reused=*/true);
  }

  Result<FileStat> Stat(const std::string& path) override {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return ErrnoStatus("cannot stat", path);
    FileStat fs;
    fs.size = static_cast<uint64_t>(st.st_size);
    fs.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
    fs.is_dir = S_ISDIR(st.st_mode);
    fs.is_special = !fs.is_dir && !S_ISREG(st.st_mode);
    return fs;
  }

  bool Exists(const std::string& path) override { return ::access(path.c_str(), F_OK) == 0; }

  Status CreateDirs(const std::string& path) override {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
      if (S_ISDIR(st.st_mode)) return Status::Ok();
      errno = ENOTDIR;
      return ErrnoStatus("cannot create directory", path);
    }
    const std::string parent = DirName(path);
    if (parent != path && parent != "." && parent != "/") SEQFLOW_RETURN_IF_ERROR(CreateDirs(parent));
    if (calls_->Mkdir(path, 0755) != 0 && errno != EEXIST) return ErrnoStatus("cannot create directory", path);
    return Status::Ok();
  }

  Result<std::vector<std::string>> ListDir(const std::string& path) override {
    DIR* d = ::opendir(path.c_str());
    if (d == nullptr) return ErrnoStatus("cannot list", path);
    std::vector<std::string> names;
    while (struct dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name != "." && name != "..") names.push_back(std::move(name));
    }
    ::closedir(d);
    std::sort(names.begin(), names.end());
    return names;
  }

  Status RemoveFile(const std::string& path) override {
    if (calls_->Unlink(path) != 0) return ErrnoStatus("cannot remove", path);
    return Status::Ok();
  }

  Status RemoveDir(const std::string& path) override {
    if (calls_->Rmdir(path) != 0) return ErrnoStatus("cannot remove directory", path);
    return Status::Ok();
  }

  // A lock whose owner text could not be written is removed again: an empty lock file would
  // look like a live owner on another host to every other worker until it went stale.
  Status CreateExclusive(const std::string& path, std::string_view data, bool* created) override {
    *created = false;
    int fd = calls_->Open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return errno == EEXIST ? Status::Ok() : ErrnoStatus("cannot create", path);
    Status s = WriteAll(fd, path, data);
    ::close(fd);
    if (!s.ok()) {
      calls_->Unlink(path);
      return s;
    }
    *created = true;
    return Status::Ok();
  }

  Status Rename(const std::string& from, const std::string& to) override {
    if (calls_->Rename(from, to) != 0) return ErrnoStatus("cannot rename " + from + " to", to);
    return Status::Ok();
  }

  // A link beside `path` under a name of its own, renamed over it: rename replaces a link as it
  // replaces a file.
  Status PointLink(const std::string& path, const std::string& target) override {
    const std::string tmp = path + ".tmp" + std::to_string(::getpid());
    calls_->Unlink(tmp);
    if (::symlink(target.c_str(), tmp.c_str()) != 0) return ErrnoStatus("cannot create link", tmp);
    if (calls_->Rename(tmp, path) != 0) {
      Status s = ErrnoStatus("cannot rename onto", path);
      calls_->Unlink(tmp);
      return s;
    }
    return Status::Ok();
  }

  Status Touch(const std::string& path) override {
    if (calls_->Utimens(path) != 0) return ErrnoStatus("cannot touch", path);
    return Status::Ok();
  }

 private:
  // Writes `parts` from the start of `fd` (open on `tmp`; a `reused` file is cut there), fsyncs it,
  // closes it and renames it onto `path`, then fsyncs the directory; `tmp` is removed on failure.
  Status Publish(int fd, const std::string& tmp, const std::string& path, const std::vector<std::string_view>& parts,
                 bool reused) {
    Status s;
    off_t length = 0;
    for (std::string_view data : parts) {
      if (s.ok()) s = WriteAll(fd, tmp, data);
      length += static_cast<off_t>(data.size());
    }
    if (s.ok() && reused && calls_->Ftruncate(fd, tmp, length) != 0) s = ErrnoStatus("cannot truncate", tmp);
    if (s.ok() && calls_->Fsync(fd, tmp) != 0) s = ErrnoStatus("cannot fsync", tmp);
    ::close(fd);
    if (s.ok() && calls_->Rename(tmp, path) != 0) s = ErrnoStatus("cannot rename onto", path);
    if (!s.ok()) {
      calls_->Unlink(tmp);
      return s;
    }
    // The file is whole under its name; a directory that cannot be synced only risks losing the
    // name in a crash (the entry is then missing, never wrong), so that is not an error.
    const std::string dir = DirName(path);
    int dfd = calls_->Open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
    if (dfd >= 0) {
      calls_->Fsync(dfd, dir);
      ::close(dfd);
    }
    return Status::Ok();
  }

  Status WriteAll(int fd, const std::string& path, std::string_view data) {
    const char* p = data.data();
    size_t left = data.size();
    while (left > 0) {
      ssize_t n = calls_->Write(fd, path, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return ErrnoStatus("cannot write", path);
      p += n;
      left -= static_cast<size_t>(n);
    }
    return Status::Ok();
  }

  FileCalls* calls_;
};

}  // namespace

int FileCalls::Open(const std::string& path, int flags, int mode) { return ::open(path.c_str(), flags, mode); }
ssize_t FileCalls::Read(int fd, const std::string&, char* data, size_t size) { return ::read(fd, data, size); }
ssize_t FileCalls::Write(int fd, const std::string&, const char* data, size_t size) { return ::write(fd, data, size); }
int FileCalls::Fsync(int fd, const std::string&) { return ::fsync(fd); }
int FileCalls::Ftruncate(int fd, const std::string&, off_t length) { return ::ftruncate(fd, length); }
int FileCalls::Rename(const std::string& from, const std::string& to) { return ::rename(from.c_str(), to.c_str()); }
int FileCalls::Unlink(const std::string& path) { return ::unlink(path.c_str()); }
int FileCalls::Rmdir(const std::string& path) { return ::rmdir(path.c_str()); }
int FileCalls::Mkdir(const std::string& path, int mode) { return ::mkdir(path.c_str(), static_cast<mode_t>(mode)); }
int FileCalls::Utimens(const std::string& path) { return ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0); }

Status Env::ReadFileInto(const std::string& path, const std::vector<std::span<char>>& spans) {
  SEQFLOW_ASSIGN_OR_RETURN(std::string data, ReadFile(path));
  size_t total = 0;
  for (std::span<char> span : spans) total += span.size();
  if (data.size() != total)
    return Status::Io("cannot read " + path + ": " + std::to_string(data.size()) + " bytes, expected " +
                      std::to_string(total));
  size_t at = 0;
  for (std::span<char> span : spans) std::memcpy(span.data(), data.data() + at, span.size()), at += span.size();
  return Status::Ok();
}

Status Env::ReadFileChunks(const std::string& path, size_t chunk_bytes,
                           const std::function<Status(std::string_view)>& consume) {
  SEQFLOW_ASSIGN_OR_RETURN(std::string data, ReadFile(path));
  const std::string_view bytes = data;
  for (size_t at = 0; at < bytes.size(); at += std::max<size_t>(chunk_bytes, 1))
    SEQFLOW_RETURN_IF_ERROR(consume(bytes.substr(at, std::max<size_t>(chunk_bytes, 1))));
  return Status::Ok();
}

Status Env::AppendFile(const std::string& path, std::string* out) {
  SEQFLOW_ASSIGN_OR_RETURN(std::string data, ReadFile(path));
  out->append(data);
  return Status::Ok();
}

Status Env::WriteFileAtomicParts(const std::string& path, const std::vector<std::string_view>& parts) {
  std::string joined;
  for (std::string_view part : parts) joined += part;
  return WriteFileAtomic(path, joined);
}

Status Env::WriteFileAtomicPartsInto(const std::string& path, const std::vector<std::string_view>& parts,
                                     const std::string& reuse) {
  if (!reuse.empty() && Exists(reuse)) SEQFLOW_RETURN_IF_ERROR(RemoveFile(reuse));
  return WriteFileAtomicParts(path, parts);
}

std::unique_ptr<Env> NewPosixEnv(FileCalls* calls) { return std::make_unique<PosixEnv>(calls); }

Env* Env::Default() {
  static FileCalls* calls = new FileCalls();   // never deleted: used until process exit
  static PosixEnv* env = new PosixEnv(calls);  // never deleted: used until process exit
  return env;
}

std::string JoinPath(std::string_view a, std::string_view b) {
  if (a.empty() || IsAbsolutePath(b)) return std::string(b);
  std::string out(a);
  if (out.back() != '/') out += '/';
  out += b;
  return out;
}

std::string DirName(std::string_view path) {
  size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return ".";
  if (slash == 0) return "/";
  return std::string(path.substr(0, slash));
}

std::string BaseName(std::string_view path) {
  size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

bool IsAbsolutePath(std::string_view path) { return !path.empty() && path[0] == '/'; }

std::string ResolvePath(std::string_view base_dir, std::string_view path) {
  std::filesystem::path p(std::string{path});
  if (!p.is_absolute()) p = std::filesystem::absolute(std::filesystem::path(std::string{base_dir}) / p);
  return p.lexically_normal().string();
}

}  // namespace seqflow

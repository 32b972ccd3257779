#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>

#include "engine/base/env.h"

namespace seqflow {
namespace {

Status ErrnoStatus(const std::string& what, const std::string& path) {
  return Status::Io(what + " " + path + ": " + std::strerror(errno));
}

class PosixEnv final : public Env {
 public:
  Result<std::string> ReadFile(const std::string& path) override {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return ErrnoStatus("cannot open", path);
    std::string data;
    struct stat st {};
    if (::fstat(fd, &st) == 0 && st.st_size > 0) data.reserve(static_cast<size_t>(st.st_size));
    char buf[1 << 16];
    for (;;) {
      ssize_t n = ::read(fd, buf, sizeof buf);
      if (n < 0) {
        if (errno == EINTR) continue;
        Status s = ErrnoStatus("cannot read", path);
        ::close(fd);
        return s;
      }
      if (n == 0) break;
      data.append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
    return data;
  }

  Status WriteFileAtomic(const std::string& path, std::string_view data) override {
    static std::atomic<uint64_t> counter{0};
    std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return ErrnoStatus("cannot create", tmp);
    const char* p = data.data();
    size_t left = data.size();
    while (left > 0) {
      ssize_t n = ::write(fd, p, left);
      if (n < 0) {
        if (errno == EINTR) continue;
        Status s = ErrnoStatus("cannot write", tmp);
        ::close(fd);
        ::unlink(tmp.c_str());
        return s;
      }
      p += n;
      left -= static_cast<size_t>(n);
    }
    if (::fsync(fd) != 0) {
      Status s = ErrnoStatus("cannot fsync", tmp);
      ::close(fd);
      ::unlink(tmp.c_str());
      return s;
    }
    ::close(fd);
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
      Status s = ErrnoStatus("cannot rename onto", path);
      ::unlink(tmp.c_str());
      return s;
    }
    int dfd = ::open(DirName(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
      ::fsync(dfd);
      ::close(dfd);
    }
    return Status::Ok();
  }

  Result<FileStat> Stat(const std::string& path) override {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return ErrnoStatus("cannot stat", path);
    FileStat fs;
    fs.size = static_cast<uint64_t>(st.st_size);
    fs.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
    fs.is_dir = S_ISDIR(st.st_mode);
    return fs;
  }

  bool Exists(const std::string& path) override { return ::access(path.c_str(), F_OK) == 0; }

  Status CreateDirs(const std::string& path) override {
    std::error_code ec;
    std::filesystem::create_directories(path, ec);
    if (ec) return Status::Io("cannot create directory " + path + ": " + ec.message());
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
    if (::unlink(path.c_str()) != 0) return ErrnoStatus("cannot remove", path);
    return Status::Ok();
  }

  Status CreateExclusive(const std::string& path, std::string_view data, bool* created) override {
    *created = false;
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return errno == EEXIST ? Status::Ok() : ErrnoStatus("cannot create", path);
    *created = true;
    const char* p = data.data();
    size_t left = data.size();
    while (left > 0) {
      ssize_t n = ::write(fd, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        Status s = ErrnoStatus("cannot write", path);
        ::close(fd);
        return s;
      }
      p += n;
      left -= static_cast<size_t>(n);
    }
    ::close(fd);
    return Status::Ok();
  }

  Status Rename(const std::string& from, const std::string& to) override {
    if (::rename(from.c_str(), to.c_str()) != 0) return ErrnoStatus("cannot rename " + from + " to", to);
    return Status::Ok();
  }

  Status Touch(const std::string& path) override {
    if (::utimensat(AT_FDCWD, path.c_str(), nullptr, 0) != 0) return ErrnoStatus("cannot touch", path);
    return Status::Ok();
  }
};

}  // namespace

Env* Env::Default() {
  static PosixEnv* env = new PosixEnv();  // never deleted: used until process exit
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

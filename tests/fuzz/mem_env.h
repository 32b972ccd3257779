// An Env that lives in memory, for the fuzz targets: the pipeline front end resolves its includes
// here and never reaches the disk, whatever path a fuzzed pipeline names.
//   - `files`: path -> contents, the only files that read as YAML (the pipeline and its includes).
//   - any other path that is not a .yaml file nor under `empty_dir` reads as a short fake file (its
//     own path as bytes), so that nodes' `path:` parameters hash and validation goes on past them
//     to keys and plans; `empty_dir` (the plan's cache) holds nothing.
// Writes fail: the front end must not write. Thread safety: read-only after construction.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/env.h"

namespace seqflow::fuzz {

class MemEnv final : public Env {
 public:
  MemEnv(std::map<std::string, std::string> files, std::string empty_dir)
      : files_(std::move(files)), empty_dir_(std::move(empty_dir) + "/") {}

  Result<std::string> ReadFile(const std::string& path) override {
    if (auto it = files_.find(path); it != files_.end()) return it->second;
    if (IsFake(path)) return path;
    return Status::NotFound(path + ": no such file in memory");
  }
  Result<FileStat> Stat(const std::string& path) override {
    if (auto it = files_.find(path); it != files_.end()) return FileStat{it->second.size(), 0, false};
    if (IsFake(path)) return FileStat{path.size(), 0, false};
    return Status::NotFound(path + ": no such file in memory");
  }
  bool Exists(const std::string& path) override { return files_.count(path) > 0 || IsFake(path); }
  Result<std::vector<std::string>> ListDir(const std::string& path) override {
    return Status::NotFound(path + ": no directories in memory");
  }
  Status WriteFileAtomic(const std::string& path, std::string_view) override { return ReadOnly(path); }
  Status CreateDirs(const std::string& path) override { return ReadOnly(path); }
  Status RemoveFile(const std::string& path) override { return ReadOnly(path); }
  Status RemoveDir(const std::string& path) override { return ReadOnly(path); }
  Status CreateExclusive(const std::string& path, std::string_view, bool* created) override {
    *created = false;
    return ReadOnly(path);
  }
  Status Rename(const std::string& from, const std::string&) override { return ReadOnly(from); }

 private:
  bool IsFake(std::string_view path) const {
    return !path.empty() && !path.ends_with(".yaml") && !path.ends_with(".yml") && !path.ends_with("/") &&
           !path.starts_with(empty_dir_);
  }
  static Status ReadOnly(const std::string& path) { return Status::Io(path + ": the fuzz Env is read-only"); }

  std::map<std::string, std::string> files_;
  std::string empty_dir_;
};

}  // namespace seqflow::fuzz

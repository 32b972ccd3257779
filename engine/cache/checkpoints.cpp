#include "engine/cache/checkpoints.h"

#include "engine/cache/entry_format.h"

namespace seqflow {
namespace {

constexpr std::string_view kCheckpointMagic{"SQFLCKP\0", 8};

}  // namespace

Checkpoints::Checkpoints(const std::string& cache_dir, Env* env) : dir_(JoinPath(cache_dir, "checkpoints")), env_(env) {}

std::string Checkpoints::PathOf(const std::string& key) const { return JoinPath(dir_, key + ".sfc"); }

Result<std::optional<std::string>> Checkpoints::Load(const std::string& key) const {
  const std::string path = PathOf(key);
  if (!env_->Exists(path)) return std::optional<std::string>();
  SEQFLOW_ASSIGN_OR_RETURN(std::string bytes, env_->ReadFile(path));
  Result<std::string_view> state = DecodeFrame(bytes, kCheckpointMagic);
  if (!state.ok()) return Status::Corruption("damaged checkpoint " + path + ": " + state.status().message());
  return std::optional<std::string>(std::string(*state));
}

Status Checkpoints::Store(const std::string& key, std::string state) {
  SEQFLOW_RETURN_IF_ERROR(env_->CreateDirs(dir_));
  return env_->WriteFileAtomic(PathOf(key), EncodeFrameInPlace(kCheckpointMagic, std::move(state)));
}

Status Checkpoints::Remove(const std::string& key) {
  const std::string path = PathOf(key);
  if (!env_->Exists(path)) return Status::Ok();
  return env_->RemoveFile(path);
}

}  // namespace seqflow

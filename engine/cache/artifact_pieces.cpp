#include "engine/cache/artifact_pieces.h"

#include "engine/cache/content_pieces.h"

namespace seqflow {
namespace {

constexpr std::string_view kPieceSuffix = ".sfp";

}  // namespace

ArtifactPieces::ArtifactPieces(const std::string& cache_dir, std::string owner_key, Env* env)
    : dir_(DirOf(cache_dir)), owner_key_(std::move(owner_key)), env_(env) {}

std::string ArtifactPieces::DirOf(const std::string& cache_dir) { return JoinPath(cache_dir, "pieces"); }

std::string ArtifactPieces::PathOf(const std::string& name) const {
  return JoinPath(dir_, name + std::string(kPieceSuffix));
}

std::string ArtifactPieces::OwnerOf(const std::string& file_name) {
  const size_t dot = file_name.find('.');
  if (dot == std::string::npos || dot == 0 || !file_name.ends_with(kPieceSuffix) ||
      file_name.find('.', dot + 1) != file_name.size() - kPieceSuffix.size())
    return "";
  return file_name.substr(0, dot);
}

Result<std::string> ArtifactPieces::Put(std::string_view bytes) {
  if (owner_key_.empty()) return Status::Internal("this piece store only reads");
  SEQFLOW_RETURN_IF_ERROR(env_->CreateDirs(dir_));
  const std::string content_name = ContentPieceName(bytes);
  std::string name = owner_key_ + "." + content_name;
  const std::string path = PathOf(name);
  // A damaged piece left by an earlier run is what made its owner recompute: replace it.
  if (env_->Exists(path) && !Check(name).ok()) SEQFLOW_RETURN_IF_ERROR(env_->RemoveFile(path));
  SEQFLOW_RETURN_IF_ERROR(WriteContentPiece(env_, path, content_name, bytes));
  return name;
}

Result<std::string> ArtifactPieces::Get(const std::string& name) const {
  const size_t dot = name.find('.');
  if (dot == std::string::npos) return Status::Corruption("bad piece name '" + name + "'");
  const std::string path = PathOf(name);
  if (!env_->Exists(path)) return Status::Corruption("missing piece " + path);
  Result<std::string> bytes = ReadContentPiece(env_, path, name.substr(dot + 1));
  if (!bytes.ok() && bytes.status().code() != StatusCode::kCorruption)
    return Status::Corruption("piece " + path + " cannot be read: " + bytes.status().message());
  return bytes;
}

Status ArtifactPieces::Check(const std::string& name) const { return Get(name).status(); }

}  // namespace seqflow

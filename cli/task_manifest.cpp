#include "cli/task_manifest.h"

#include <nlohmann/json.hpp>

namespace seqflow::cli {

std::string TaskManifestPath(const std::string& cache_dir, const std::string& key) {
  return JoinPath(JoinPath(cache_dir, "tasks"), key + ".json");
}

Status WriteTaskManifest(Env* env, const std::string& cache_dir, const TaskManifest& manifest) {
  nlohmann::json j = {{"pipeline", manifest.pipeline.path},
                      {"set", manifest.pipeline.sets},
                      {"ablation", manifest.pipeline.ablation},
                      {"run", manifest.run},
                      {"node", manifest.node},
                      {"key", manifest.key}};
  const std::string path = TaskManifestPath(cache_dir, manifest.key);
  SEQFLOW_RETURN_IF_ERROR(env->CreateDirs(DirName(path)));
  return env->WriteFileAtomic(path, j.dump(1) + "\n");
}

Result<TaskManifest> ReadTaskManifest(Env* env, const std::string& cache_dir, const std::string& key) {
  const std::string path = TaskManifestPath(cache_dir, key);
  if (!env->Exists(path))
    return Status::NotFound("no task manifest " + path +
                            " (tasks are made by `seqflow run --executor slurm`; or name the node with "
                            "--pipeline, --run and --node)");
  SEQFLOW_ASSIGN_OR_RETURN(std::string text, env->ReadFile(path));
  try {
    nlohmann::json j = nlohmann::json::parse(text);
    TaskManifest m;
    m.pipeline.path = j.at("pipeline").get<std::string>();
    m.pipeline.sets = j.at("set").get<std::vector<std::string>>();
    m.pipeline.ablation = j.at("ablation").get<std::string>();
    m.run = j.at("run").get<int>();
    m.node = j.at("node").get<std::string>();
    m.key = j.at("key").get<std::string>();
    // The key names the task's files (its status record, its entry): a manifest of another key
    // (copied, or written to reach a path outside the cache) is refused, as a damaged one.
    if (m.key != key) return Status::Corruption("task manifest " + path + " is the manifest of key '" + m.key + "'");
    return m;
  } catch (const nlohmann::json::exception& e) {
    return Status::Corruption("task manifest " + path + ": " + e.what());
  }
}

}  // namespace seqflow::cli

#include "engine/exec/task_status.h"

#include <sstream>

namespace seqflow {
namespace {

std::string OneLine(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  return text;
}

}  // namespace

std::string TaskStatusPath(const std::string& cache_dir, const std::string& key) {
  return JoinPath(JoinPath(cache_dir, "status"), key + ".status");
}

Status WriteTaskStatus(Env* env, const std::string& cache_dir, const std::string& key, const TaskStatus& status) {
  const std::string path = TaskStatusPath(cache_dir, key);
  SEQFLOW_RETURN_IF_ERROR(env->CreateDirs(DirName(path)));
  std::ostringstream out;
  out << "exit " << status.exit_code << "\nhost " << OneLine(status.host) << "\njob " << OneLine(status.job)
      << "\nseconds " << status.seconds << "\nreason " << OneLine(status.reason) << "\n";
  return env->WriteFileAtomic(path, out.str());
}

Result<std::optional<TaskStatus>> ReadTaskStatus(Env* env, const std::string& cache_dir, const std::string& key) {
  const std::string path = TaskStatusPath(cache_dir, key);
  if (!env->Exists(path)) return std::optional<TaskStatus>();
  SEQFLOW_ASSIGN_OR_RETURN(std::string text, env->ReadFile(path));
  TaskStatus status;
  std::istringstream in(text);
  std::string field;
  bool has_exit = false;
  while (in >> field) {
    std::string value;
    std::getline(in, value);
    if (!value.empty() && value.front() == ' ') value.erase(0, 1);
    if (field == "exit") {
      std::istringstream(value) >> status.exit_code;
      has_exit = true;
    } else if (field == "host") {
      status.host = value;
    } else if (field == "job") {
      status.job = value;
    } else if (field == "seconds") {
      std::istringstream(value) >> status.seconds;
    } else if (field == "reason") {
      status.reason = value;
    }
  }
  if (!has_exit) return Status::Corruption("task status " + path + " has no exit code");
  return std::optional<TaskStatus>(std::move(status));
}

Status RemoveTaskStatus(Env* env, const std::string& cache_dir, const std::string& key) {
  const std::string path = TaskStatusPath(cache_dir, key);
  if (!env->Exists(path)) return Status::Ok();
  return env->RemoveFile(path);
}

}  // namespace seqflow

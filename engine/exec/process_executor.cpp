#include "engine/exec/process_executor.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "engine/base/subprocess.h"

extern char** environ;

namespace seqflow {

ProcessExecutor::ProcessExecutor(ProcessOptions options, Env* env) : options_(std::move(options)), env_(env) {}

ProcessExecutor::~ProcessExecutor() { Cancel(); }

Result<std::vector<std::string>> ProcessExecutor::Submit(const std::vector<Task>& tasks) {
  SEQFLOW_RETURN_IF_ERROR(env_->CreateDirs(JoinPath(options_.sweep_dir, "logs")));
  std::vector<std::string> handles;
  for (const Task& task : tasks) {
    const std::string handle = std::to_string(next_++);
    queued_[handle] = task;
    order_.push_back(handle);
    handles.push_back(handle);
    submitted_ += handle + "\t" + task.key + "\t" + task.label + "\n";
  }
  SEQFLOW_RETURN_IF_ERROR(env_->WriteFileAtomic(JoinPath(options_.sweep_dir, "tasks.tsv"), submitted_));
  return handles;
}

Status ProcessExecutor::Start(const std::string& handle) {
  const Task& task = queued_.at(handle);
  const std::string logs = JoinPath(options_.sweep_dir, "logs");
  const std::string out = JoinPath(logs, handle + ".out"), err = JoinPath(logs, handle + ".err");
  std::vector<std::string> argv =
      RunNodeArgv(options_.seqflow_binary, options_.cache_dir, task.threads, options_.checkpoint_seconds);
  argv.push_back(task.key);
  if (task.processes > 1)
    argv.insert(argv.begin(), {"mpirun", "--oversubscribe", "-np", std::to_string(task.processes)});
  std::vector<char*> args;
  for (std::string& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  const int spawned = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return Status::Io("cannot start " + argv[0] + ": " + std::strerror(spawned));
  running_[pid] = handle;
  return Status::Ok();
}

Result<std::map<std::string, TaskState>> ProcessExecutor::Poll() {
  std::map<std::string, TaskState> states;
  for (auto it = running_.begin(); it != running_.end();) {
    int status = 0;
    const pid_t done = ::waitpid(it->first, &status, WNOHANG);
    if (done == 0) {
      ++it;
      continue;
    }
    exit_codes_[it->second] = done < 0 ? -1 : WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    states[it->second] = TaskState::kEnded;
    queued_.erase(it->second);
    it = running_.erase(it);
  }
  while (static_cast<int>(running_.size()) < std::max(1, options_.max_jobs) && !order_.empty()) {
    const std::string handle = order_.front();
    order_.erase(order_.begin());
    if (Status started = Start(handle); !started.ok()) return started;
  }
  for (const auto& [pid, handle] : running_) states[handle] = TaskState::kRunning;
  for (const std::string& handle : order_) states[handle] = TaskState::kQueued;
  return states;
}

Status ProcessExecutor::Cancel() {
  for (const auto& [pid, handle] : running_) ::kill(pid, SIGTERM);
  for (const auto& [pid, handle] : running_) ::waitpid(pid, nullptr, 0);
  running_.clear();
  order_.clear();
  queued_.clear();
  return Status::Ok();
}

std::string ProcessExecutor::Diagnostics(const std::string& handle) {
  std::string text = "task " + handle;
  auto code = exit_codes_.find(handle);
  if (code != exit_codes_.end())
    text += code->second > 128 ? ", killed by signal " + std::to_string(code->second - 128)
                               : ", exit status " + std::to_string(code->second);
  const std::string err_file = JoinPath(JoinPath(options_.sweep_dir, "logs"), handle + ".err");
  Result<std::string> err = env_->ReadFile(err_file);
  if (!err.ok() || LastLines(*err, kTaskErrorTailLines).empty()) return text;
  return text + ", end of " + err_file + ":\n" + LastLines(*err, kTaskErrorTailLines);
}

}  // namespace seqflow

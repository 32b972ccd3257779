#include "engine/exec/slurm_executor.h"

#include <algorithm>
#include <sstream>
#include <tuple>

#include "engine/base/subprocess.h"

namespace seqflow {
namespace {

Status CommandFailed(const std::vector<std::string>& argv, const ProcessOutput& out) {
  std::string why = LastLines(out.err.empty() ? out.out : out.err, 3);
  return Status::Io(ShellQuote({argv.front()}) + " failed (exit " + std::to_string(out.exit_code) + "): " + why);
}

// PD (pending) is queued; R, CG (completing), CF (configuring), S (suspended), RQ, RS, SO are
// still the scheduler's; anything else (CD, F, CA, TO, OOM, NF, PR, BF, DL) has ended.
TaskState StateOf(const std::string& code) {
  if (code == "PD") return TaskState::kQueued;
  static const char* kAlive[] = {"R", "CG", "CF", "S", "RQ", "RS", "SO", "RD", "RF", "RH", "ST", "SI", "SE"};
  for (const char* alive : kAlive)
    if (code == alive) return TaskState::kRunning;
  return TaskState::kEnded;
}

}  // namespace

std::map<std::string, TaskState> ParseSqueue(const std::string& text) {
  std::map<std::string, TaskState> states;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string id, code;
    if (!(words >> id >> code)) continue;
    // A pending array not yet split may still print as JOB_[0-5%2]; its elements stay queued.
    if (id.find('[') != std::string::npos) continue;
    states[id] = StateOf(code);
  }
  return states;
}

SlurmExecutor::SlurmExecutor(SlurmOptions options, Env* env) : options_(std::move(options)), env_(env) {}

std::vector<std::string> SlurmExecutor::SbatchCommand(const std::string& list_file, int tasks, int threads,
                                                      int memory_mb, int processes) const {
  const std::string logs = JoinPath(options_.sweep_dir, "logs");
  std::string array = "--array=0-" + std::to_string(tasks - 1);
  if (options_.max_jobs > 0) array += "%" + std::to_string(options_.max_jobs);
  std::vector<std::string> argv = {"sbatch",
                                   "--parsable",
                                   array,
                                   "--job-name=" + options_.job_name,
                                   "--cpus-per-task=" + std::to_string(threads),
                                   "--output=" + JoinPath(logs, "%A_%a.out"),
                                   "--error=" + JoinPath(logs, "%A_%a.err"),
                                   "--chdir=" + options_.work_dir};
  if (processes > 1) argv.push_back("--ntasks=" + std::to_string(processes));
  if (memory_mb > 0) argv.push_back("--mem=" + std::to_string(memory_mb) + "M");
  if (!options_.partition.empty()) argv.push_back("--partition=" + options_.partition);
  argv.insert(argv.end(), options_.sbatch_args.begin(), options_.sbatch_args.end());
  std::vector<std::string> task =
      RunNodeArgv(options_.seqflow_binary, options_.cache_dir, threads, options_.checkpoint_seconds);
  task.insert(task.end(), {"--list", list_file});
  if (processes > 1) task.insert(task.begin(), {"srun", "--mpi=pmix"});
  argv.push_back("--wrap=exec " + ShellQuote(task));
  return argv;
}

Result<std::vector<std::string>> SlurmExecutor::Submit(const std::vector<Task>& tasks) {
  SEQFLOW_RETURN_IF_ERROR(env_->CreateDirs(JoinPath(options_.sweep_dir, "logs")));
  // One array per resource class (cores, memory, ranks), in order of first appearance.
  std::vector<std::tuple<int, int, int>> classes;
  for (const Task& t : tasks)
    if (std::find(classes.begin(), classes.end(), std::tuple(t.threads, t.memory_mb, t.processes)) == classes.end())
      classes.emplace_back(t.threads, t.memory_mb, t.processes);
  std::vector<std::string> handles(tasks.size());
  const size_t bundle = static_cast<size_t>(std::max(1, options_.bundle));
  for (const auto& [threads, memory_mb, processes] : classes) {
    std::vector<size_t> members;
    for (size_t i = 0; i < tasks.size(); ++i)
      if (std::tuple(tasks[i].threads, tasks[i].memory_mb, tasks[i].processes) ==
          std::tuple(threads, memory_mb, processes))
        members.push_back(i);
    std::string lines;
    for (size_t m = 0; m < members.size(); ++m)
      lines += tasks[members[m]].key + ((m + 1) % bundle == 0 || m + 1 == members.size() ? "\n" : " ");
    const int array_tasks = static_cast<int>((members.size() + bundle - 1) / bundle);
    const std::string list_file = JoinPath(options_.sweep_dir, "tasks-" + std::to_string(lists_++) + ".keys");
    SEQFLOW_RETURN_IF_ERROR(env_->WriteFileAtomic(list_file, lines));
    std::vector<std::string> argv = SbatchCommand(list_file, array_tasks, threads, memory_mb, processes);
    SEQFLOW_ASSIGN_OR_RETURN(ProcessOutput out, RunProcess(argv));
    if (out.exit_code != 0) return CommandFailed(argv, out);
    // --parsable prints "JOBID" or "JOBID;CLUSTER".
    std::string job = out.out.substr(0, out.out.find_first_of(";\n"));
    if (job.empty() || job.find_first_not_of("0123456789") != std::string::npos)
      return Status::Io("sbatch printed no job id: '" + out.out + "'");
    for (size_t m = 0; m < members.size(); ++m) {
      const std::string& handle = handles[members[m]] = job + "_" + std::to_string(m / bundle);
      pending_.insert(handle);
      submitted_ += handle + "\t" + tasks[members[m]].key + "\t" + tasks[members[m]].label + "\n";
    }
  }
  SEQFLOW_RETURN_IF_ERROR(env_->WriteFileAtomic(JoinPath(options_.sweep_dir, "tasks.tsv"), submitted_));
  return handles;
}

Result<std::map<std::string, TaskState>> SlurmExecutor::Poll() {
  const std::vector<std::string> argv = {"squeue", "--noheader", "--array", "--name=" + options_.job_name,
                                         "--format=%i %t"};
  SEQFLOW_ASSIGN_OR_RETURN(ProcessOutput out, RunProcess(argv));
  if (out.exit_code != 0) return CommandFailed(argv, out);
  std::map<std::string, TaskState> listed = ParseSqueue(out.out);
  std::map<std::string, TaskState> states;
  for (auto it = pending_.begin(); it != pending_.end();) {
    auto found = listed.find(*it);
    // Absent from squeue: ended (finished jobs leave it after MinJobAge).
    TaskState state = found == listed.end() ? TaskState::kEnded : found->second;
    states[*it] = state;
    it = state == TaskState::kEnded ? pending_.erase(it) : std::next(it);
  }
  return states;
}

Status SlurmExecutor::Cancel() {
  if (pending_.empty()) return Status::Ok();
  const std::vector<std::string> argv = {"scancel", "--name=" + options_.job_name};
  SEQFLOW_ASSIGN_OR_RETURN(ProcessOutput out, RunProcess(argv));
  if (out.exit_code != 0) return CommandFailed(argv, out);
  pending_.clear();
  return Status::Ok();
}

std::string SlurmExecutor::Diagnostics(const std::string& handle) {
  const std::string err_file = JoinPath(JoinPath(options_.sweep_dir, "logs"), handle + ".err");
  std::string text = "Slurm job " + handle;
  Result<std::string> err = env_->ReadFile(err_file);
  if (!err.ok()) return text + " (no stderr file " + err_file + ")";
  std::string tail = LastLines(*err, kTaskErrorTailLines);
  if (tail.empty()) return text + " (stderr empty)";
  return text + ", end of " + err_file + ":\n" + tail;
}

}  // namespace seqflow

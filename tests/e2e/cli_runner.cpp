#include "tests/e2e/cli_runner.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "tests/testutil/status_matchers.h"

namespace seqflow::testutil {

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::map<std::string, nlohmann::json> KeysAndMetrics(const nlohmann::json& summary) {
  std::map<std::string, nlohmann::json> out;
  for (const nlohmann::json& run : summary.at("runs"))
    for (const auto& [name, node] : run.at("nodes").items())
      out[run.value("ablation", nlohmann::json::object()).dump() + " " + name] =
          nlohmann::json{{"key", node.at("key")}, {"metrics", node.value("metrics", nlohmann::json::object())}};
  return out;
}

namespace {

std::vector<char*> Argv(const std::vector<std::string>& args, std::vector<std::string>& storage) {
  storage.clear();
  storage.push_back(SEQFLOW_BIN);
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : storage) argv.push_back(s.data());
  argv.push_back(nullptr);
  return argv;
}

int Spawn(const std::vector<std::string>& args, const std::string& work_dir, const std::string& out_path,
          const std::string& err_path) {
  std::vector<std::string> storage;
  std::vector<char*> argv = Argv(args, storage);
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    if (::chdir(work_dir.c_str()) != 0) ::_exit(127);
    int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(out, 1);
    ::dup2(err, 2);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

}  // namespace

int WaitSeqflow(int pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return WIFSIGNALED(status) ? -WTERMSIG(status) : -1;
}

CliResult RunSeqflow(const std::vector<std::string>& args, const std::string& work_dir) {
  std::string dir = MakeTempDir("seqflow-cli");
  std::string out_path = dir + "/stdout", err_path = dir + "/stderr";
  CliResult r;
  r.exit_code = WaitSeqflow(Spawn(args, work_dir, out_path, err_path));
  r.out = Slurp(out_path);
  r.err = Slurp(err_path);
  return r;
}

int StartSeqflow(const std::vector<std::string>& args, const std::string& work_dir, const std::string& err_file) {
  return Spawn(args, work_dir, "/dev/null", err_file);
}

nlohmann::json ReadSummary(const std::string& out_dir) {
  return nlohmann::json::parse(Slurp(out_dir + "/summary.json"));
}

std::map<std::string, std::string> NodeStatuses(const nlohmann::json& summary, size_t run) {
  std::map<std::string, std::string> out;
  for (const auto& [name, node] : summary.at("runs").at(run).at("nodes").items())
    out[name] = node.at("status").get<std::string>();
  return out;
}

double MetricOf(const nlohmann::json& summary, const std::string& node, const std::string& name, size_t run) {
  return summary.at("runs").at(run).at("nodes").at(node).at("metrics").at(name).get<double>();
}

size_t RunWithAblation(const nlohmann::json& summary, const std::string& field, const std::string& value) {
  const auto& runs = summary.at("runs");
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto& ablation = runs[i].at("ablation");
    if (ablation.contains(field) && ablation.at(field) == value) return i;
  }
  ADD_FAILURE() << "no run with " << field << " = " << value;
  return 0;
}

std::string PipelinePath(const std::string& relative) { return SourceDir() + "/pipelines/" + relative; }

}  // namespace seqflow::testutil

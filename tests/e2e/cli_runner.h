// Runs the real `seqflow` binary as a child process, for end-to-end tests.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace seqflow::testutil {

struct CliResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs `seqflow ARGS...` in `work_dir` (quoting each argument) and waits for it.
CliResult RunSeqflow(const std::vector<std::string>& args, const std::string& work_dir = ".");
// Starts it in the background; returns the child's pid (for kill tests). Standard output is
// discarded, standard error too unless `err_file` names a file for it.
int StartSeqflow(const std::vector<std::string>& args, const std::string& work_dir = ".",
                 const std::string& err_file = "/dev/null");
// Waits for a child started by StartSeqflow; returns its exit code, or -signal if killed.
int WaitSeqflow(int pid);

// The whole content of a file ("" when it cannot be read).
std::string Slurp(const std::string& path);

// Every node's key and metrics by "<run's ablation setting> <node>": what an executor must not
// change (statuses and timings may differ).
std::map<std::string, nlohmann::json> KeysAndMetrics(const nlohmann::json& summary);

// summary.json of a run written with --out DIR.
nlohmann::json ReadSummary(const std::string& out_dir);
// "computed"/"cached" status of every node of run `run` in a summary.
std::map<std::string, std::string> NodeStatuses(const nlohmann::json& summary, size_t run = 0);
// Metric `name` of node `node` in run `run`; throws if absent.
double MetricOf(const nlohmann::json& summary, const std::string& node, const std::string& name, size_t run = 0);
// The first run whose ablation sets `field` (NODE.PARAM) to `value`; a test failure and 0 if none.
size_t RunWithAblation(const nlohmann::json& summary, const std::string& field, const std::string& value);

// Absolute path of a file under the project's pipelines/ folder.
std::string PipelinePath(const std::string& relative);

}  // namespace seqflow::testutil

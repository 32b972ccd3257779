// `seqflow runs [PIPELINE...]`: the history of run records under the records root, one line per
// run of each record (a record of an ablation grid has a run per setting), newest first:
//   ID  STARTED  STATUS  SETTING  METRICS
// where ID is the record's id (record_history.h) with "#K" for its K-th run when it has several,
// SETTING the --set overrides and the run's ablation values, METRICS the first headline metric
// of each evaluator. --json gives every field, and every headline metric, for other tools.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>

#include "cli/commands.h"
#include "engine/base/log.h"
#include "engine/record/record_folder.h"
#include "engine/record/record_history.h"

namespace seqflow::cli {
namespace {

struct RunLine {
  const FoundRecord* found;
  size_t run;  // index into found->record.runs
};

std::string LineId(const RunLine& line) {
  const size_t runs = line.found->record.runs.size();
  return runs == 1 ? line.found->id : fmt::format("{}#{}", line.found->id, line.run + 1);
}

// "2026-12-07T06:15:00Z" -> "2026-12-07 06:15:00".
std::string ShortTime(std::string utc) {
  if (utc.size() == 20) utc = utc.substr(0, 10) + " " + utc.substr(11, 8);
  return utc.empty() ? "-" : utc;
}

std::string Setting(const RunLine& line) {
  std::string text;
  for (const std::string& set : line.found->record.invocation.sets) text += (text.empty() ? "" : ", ") + set;
  const RunRecord& run = line.found->record.runs[line.run];
  if (!run.ablation.empty()) text += (text.empty() ? "" : "; ") + SettingLabel(run.ablation);
  return text.empty() ? "base" : text;
}

// (node.metric, value) of every headline metric of every evaluator of the run, in node order; only
// the first of each node's with `first_only`.
std::vector<std::pair<std::string, double>> Headlines(const RunLine& line, bool first_only) {
  std::vector<std::pair<std::string, double>> out;
  const PipelineRecord& record = line.found->record;
  for (const auto& [name, node] : record.runs[line.run].nodes) {
    const RecordSpec& declared = record.Declared(node.kind);
    if (declared.role != NodeRole::kEvaluator) continue;
    for (const std::string& metric : declared.headline) {
      const size_t before = out.size();
      for (const auto& [reported, value] : node.metrics)
        if (reported == metric || (declared.per_system && reported.starts_with(metric + ".")))
          out.emplace_back(name + "." + reported, value);
      if (first_only && out.size() > before) break;
    }
  }
  return out;
}

size_t ComputedNodes(const RunRecord& run) {
  size_t computed = 0;
  for (const auto& [name, node] : run.nodes) computed += node.status == NodeStatus::kComputed;
  return computed;
}

// "ok 3/12": the run succeeded and computed 3 of its 12 nodes (the rest came from the cache).
std::string StatusText(const RunLine& line) {
  const RunRecord& run = line.found->record.runs[line.run];
  return fmt::format("{} {}/{}", run.ok ? "ok" : "FAILED", ComputedNodes(run), run.nodes.size());
}

nlohmann::json LineJson(const RunLine& line) {
  const PipelineRecord& record = line.found->record;
  const RunRecord& run = record.runs[line.run];
  nlohmann::json metrics = nlohmann::json::object();
  for (const auto& [name, value] : Headlines(line, false)) metrics[name] = value;
  return {{"id", LineId(line)},
          {"dir", line.found->dir},
          {"pipeline", record.pipeline},
          {"run", line.run + 1},
          {"started", record.invocation.started},
          {"finished", record.invocation.finished},
          {"ok", run.ok},
          {"computed", ComputedNodes(run)},
          {"nodes", run.nodes.size()},
          {"set", record.invocation.sets},
          {"ablation", run.ablation},
          {"axes", run.axes},
          {"metrics", metrics}};
}

std::string Text(const std::vector<RunLine>& lines) {
  size_t id_width = 2, setting_width = 7;
  for (const RunLine& line : lines) {
    id_width = std::max(id_width, LineId(line).size());
    setting_width = std::max(setting_width, Setting(line).size());
  }
  std::string out = fmt::format("{:<{}}  {:<19}  {:<12}  {:<{}}  {}\n", "ID", id_width, "STARTED", "STATUS", "SETTING",
                                setting_width, "METRICS");
  for (const RunLine& line : lines) {
    std::string metrics;
    for (const auto& [name, value] : Headlines(line, true)) metrics += fmt::format("{}{}={:.4f}", metrics.empty() ? "" : " ", name, value);
    out += fmt::format("{:<{}}  {:<19}  {:<12}  {:<{}}  {}\n", LineId(line), id_width,
                       ShortTime(line.found->record.invocation.started), StatusText(line), Setting(line), setting_width,
                       metrics);
  }
  return out;
}

}  // namespace

int RunsCommand(const RunsArgs& args) {
  Env* env = Env::Default();
  const std::string root = RecordsRoot(args.records_root);
  const RecordScan scan = FindRecords(root, env);
  for (const Status& bad : scan.unreadable) LogError("skipped: " + bad.ToString());
  std::vector<RunLine> lines;
  for (const FoundRecord& found : scan.records) {
    const bool wanted = args.pipelines.empty() || std::any_of(args.pipelines.begin(), args.pipelines.end(),
                                                              [&](const std::string& p) { return p == found.record.pipeline; });
    if (!wanted) continue;
    for (size_t r = 0; r < found.record.runs.size(); ++r) lines.push_back({&found, r});
  }
  if (args.limit > 0 && lines.size() > static_cast<size_t>(args.limit)) lines.resize(args.limit);
  if (args.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const RunLine& line : lines) out.push_back(LineJson(line));
    std::printf("%s\n", out.dump(2).c_str());
  } else if (lines.empty()) {
    LogInfo("no run records under " + root + (args.pipelines.empty() ? "" : " for those pipelines") +
            " (seqflow run writes one per run; --records or $SEQFLOW_RECORDS names another root)");
  } else {
    std::printf("%s", Text(lines).c_str());
  }
  return 0;
}

}  // namespace seqflow::cli

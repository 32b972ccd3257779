#include <cstdio>

#include <fmt/format.h>

#include "engine/base/log.h"
#include "engine/cli/commands.h"
#include "engine/record/plan_explain.h"
#include "engine/record/run_record.h"

namespace seqflow::cli {

int PlanCommand(const RunArgs& args) {
  Env* env = Env::Default();
  FileHasher hasher(env);
  std::optional<Pipeline> pipeline = LoadPipelineOrLog(args.pipeline, env, hasher);
  if (!pipeline) return 2;
  Cache cache(CacheDir(args.cache_dir), &TheRegistry(), env);
  for (const auto& run : pipeline->runs) {
    if (pipeline->runs.size() > 1) std::printf("%s\n", SettingLabel(run.variant.assignment).c_str());
    Result<std::optional<RunHistory>> last = cache.LoadRunHistory(RunId(pipeline->name, run.variant.assignment));
    if (!last.ok()) LogWarning(last.status().ToString() + " (explaining without the last run)");
    const RunHistory none;
    int to_run = 0;
    for (const PlanLine& line : ExplainPlan(run.dag, cache, last.ok() && *last ? **last : none, args.force)) {
      bool runs = line.reason != PlanReason::kCached;
      to_run += runs;
      std::string text = fmt::format("  {:<4} {:<18} {:<24} {:<15} {}", runs ? "run" : "-", line.node, line.kind,
                                     PlanReasonName(line.reason), line.detail);
      while (!text.empty() && text.back() == ' ') text.pop_back();
      std::printf("%s\n", text.c_str());
    }
    std::printf("  %d of %zu nodes would run\n", to_run, run.dag.nodes.size());
  }
  return 0;
}

}  // namespace seqflow::cli

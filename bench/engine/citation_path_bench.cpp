// Issue 20's two speed points on the real citations, timed as a user runs them: the `seqflow`
// binary on a cold cache, reading ${SEQFLOW_DATA} (run from the repository root, or set it).
//
// BM_CitationPathPoints/N: the EM_λ curve in the paper's setting (pipelines/citations_folds.yaml:
//   300 labeled, 1,000 unlabeled CS references, vocabulary over L ∪ U at min_count 5, P = 14,027)
//   with the tracker's fastest options that stay on the curve, one worker (-j1), N steps. The
//   path's own cost per point is the difference from a 1-step run (which pays reading, vocabulary
//   and the supervised start), over N. A full path to λ = 1 needs thousands of points on this
//   curve (bench/RESULTS.md), so `points_in_10s` against that count is the speed point's verdict.
// BM_CitationTable1TenSplits: pipelines/citations_table1_splits.yaml (Table 1 over 10 seeded
//   re-splits) on 2 workers; target < 5 min wall.
//
// Child CPU is counted by getrusage(RUSAGE_CHILDREN): with one worker it is what one core spends.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bench/engine/spawn_seqflow.h"

namespace {

using seqflow::bench::RunSeqflow;
namespace fs = std::filesystem;

double ChildCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_CHILDREN, &usage);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec); };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

struct Timed {
  int exit_code = -1;
  double wall = 0;
  double cpu = 0;
};

Timed TimeSeqflow(const std::vector<std::string>& args) {
  const double cpu_before = ChildCpuSeconds();
  const auto start = std::chrono::steady_clock::now();
  Timed t;
  t.exit_code = RunSeqflow(args);
  t.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  t.cpu = ChildCpuSeconds() - cpu_before;
  return t;
}

// Rows of path.csv and the largest λ among them.
struct PathTable {
  int points = 0;
  double lambda_max = 0;
};

PathTable ReadPathTable(const fs::path& csv) {
  std::ifstream in(csv);
  std::string line;
  PathTable table;
  if (!std::getline(in, line)) return table;
  // s,lambda,... : λ is the second column.
  while (std::getline(in, line)) {
    std::istringstream row(line);
    std::string s, lambda;
    std::getline(row, s, ',');
    std::getline(row, lambda, ',');
    ++table.points;
    table.lambda_max = std::max(table.lambda_max, std::stod(lambda));
  }
  return table;
}

// The paper's setting with the options of bench/RESULTS.md's longest runs (pseudo-arclength,
// recycled GMRES, inexact Newton steps at 1e-4, Lanczos stopped on μ_max's side of 1/λ).
std::vector<std::string> PathArgs(int max_steps, const fs::path& scratch) {
  return {"run",     std::string(SEQFLOW_SOURCE_DIR) + "/pipelines/citations_folds.yaml",
          "--set",   "n_unlabeled=1000",
          "--set",   "min_count=5",
          "--set",   "path.solver=matrix_free",
          "--set",   "path.step_gmres_tol=1e-4",
          "--set",   "path.pseudo_arclength=true",
          "--set",   "path.gmres_recycle=300",
          "--set",   "path.eig_value_tol=1e-6",
          "--set",   "path.max_steps=" + std::to_string(max_steps),
          "--cache", (scratch / "cache").string(),
          "--out",   (scratch / "out").string(),
          "-j1"};
}

Timed ColdRun(const std::vector<std::string>& args, const fs::path& scratch) {
  fs::remove_all(scratch);
  return TimeSeqflow(args);
}

void BM_CitationPathPoints(benchmark::State& state) {
  const int steps = static_cast<int>(state.range(0));
  const fs::path scratch = fs::temp_directory_path() / "seqflow-bench-citation-path";
  const Timed setup = ColdRun(PathArgs(1, scratch), scratch);
  if (setup.exit_code != 0) {
    state.SkipWithError("the 1-step run failed (is ${SEQFLOW_DATA} the shared data root?)");
    return;
  }
  Timed run;
  for (auto _ : state) {
    run = ColdRun(PathArgs(steps, scratch), scratch);
    state.SetIterationTime(run.wall);
  }
  if (run.exit_code != 0) {
    state.SkipWithError("the path run failed");
    return;
  }
  const PathTable table = ReadPathTable(scratch / "out" / "path.path.csv");
  const double cpu_per_point = (run.cpu - setup.cpu) / steps;
  state.counters["setup_cpu_s"] = setup.cpu;
  state.counters["cpu_s"] = run.cpu;
  state.counters["cpu_s_per_point"] = cpu_per_point;
  state.counters["points_in_10s"] = (10.0 - setup.cpu) / cpu_per_point;
  state.counters["points"] = table.points;
  state.counters["lambda_max"] = table.lambda_max;
  fs::remove_all(scratch);
}
BENCHMARK(BM_CitationPathPoints)->Arg(100)->Unit(benchmark::kSecond)->UseManualTime()->Iterations(1);

void BM_CitationTable1TenSplits(benchmark::State& state) {
  const fs::path scratch = fs::temp_directory_path() / "seqflow-bench-table1-splits";
  const std::vector<std::string> args = {
      "run",     std::string(SEQFLOW_SOURCE_DIR) + "/pipelines/citations_table1_splits.yaml",
      "--cache", (scratch / "cache").string(),
      "--out",   (scratch / "out").string(),
      "-j2"};
  Timed run;
  for (auto _ : state) {
    run = ColdRun(args, scratch);
    state.SetIterationTime(run.wall);
  }
  if (run.exit_code != 0) {
    state.SkipWithError("the Table 1 run failed (is ${SEQFLOW_DATA} the shared data root?)");
    return;
  }
  state.counters["cpu_s"] = run.cpu;
  fs::remove_all(scratch);
}
BENCHMARK(BM_CitationTable1TenSplits)->Unit(benchmark::kSecond)->UseManualTime()->Iterations(1);

}  // namespace

BENCHMARK_MAIN();

// The subcommands of `seqflow`. Each returns the process exit code: 0 success, 1 a node
// failed, 2 the pipeline or the command line is invalid. Only this folder prints to stdout.
#pragma once

#include <set>
#include <string>

#include "engine/cli/session.h"

namespace seqflow::cli {

struct RunArgs {
  PipelineArgs pipeline;
  std::set<std::string> force;
  std::string out_dir;
  std::string cache_dir;
  int threads = 0;  // 0 = all cores
};

struct ReportArgs {
  std::string dir;       // an --out DIR of `seqflow run`
  std::string md_file;   // default DIR/report.md
  std::string csv_file;  // default DIR/report.csv
  bool plots = false;    // an SVG beside every table the record's kinds declare (paths, traces)
  bool html = false;     // DIR/report.html: graph, tables, plots and node timings in one file
};

int RunCommand(const RunArgs& args);
int PlanCommand(const RunArgs& args);
// Graphviz dot on stdout, or with `svg_file` an SVG drawing (Graphviz's when `dot` is on PATH).
int GraphCommand(const PipelineArgs& args, const std::string& svg_file);
int KindsCommand(const std::string& kind);
// The JSON Schema of the pipeline language (pipeline_schema.h) on stdout.
int SchemaCommand();
int CacheLsCommand(const std::string& cache_dir);
int CacheGcCommand(const std::string& cache_dir, double keep_days);
int CacheRmCommand(const std::string& cache_dir, const std::string& kind);
int ReportCommand(const ReportArgs& args);

}  // namespace seqflow::cli

// The subcommands of `seqflow`. Each returns the process exit code: 0 success, 1 a node
// failed, 2 the pipeline or the command line is invalid. Only this folder prints to stdout.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "cli/session.h"

namespace seqflow::cli {

// Where the node instances of `seqflow run` are computed (DESIGN §10).
struct ExecutorArgs {
  std::string executor = "local";  // local: this process's flow graph; processes: run-node children;
                                   // slurm: job arrays
  std::string partition;
  int max_jobs = 0;  // tasks running at once (slurm: per array, 0 no limit; processes: 0 cores)
  int bundle = 1;    // node instances one array task runs, one after another
  std::vector<std::string> sbatch_args;
  int retries = 0;
  int task_threads = 1;    // cores per task of a kind that declares itself parallel
  int task_processes = 1;  // MPI ranks per task of a kind that declares itself data-parallel
  double poll_seconds = 2;
};

struct RunArgs {
  PipelineArgs pipeline;
  std::set<std::string> force;
  std::string out_dir;       // the record's folder; "" for <records root>/<pipeline>/<time>-<id>/
  bool replace_out = false;  // an earlier record in out_dir may be removed
  std::string records_root;  // "" for $SEQFLOW_RECORDS or out (record_folder.h)
  std::string cache_dir;
  int threads = 0;  // 0 = all cores
  ExecutorArgs executor;
  double checkpoint_seconds = 30;  // between checkpoints of an iterative node
  int64_t memory_mb = -1;          // the local executor's memory budget; -1: the machine's memory, 0: none
  std::vector<std::string> command_line;  // argv, for the run record
};

// One node instance, computed from inputs already in the cache (the unit a cluster task runs).
struct RunNodeArgs {
  std::string key;        // its cache key: the sweep wrote <cache>/tasks/KEY.json
  std::string list_file;  // or line $SLURM_ARRAY_TASK_ID of this file holds the key
  PipelineArgs pipeline;  // or the pipeline, run (from 1) and node name
  int run = 1;
  std::string node;
  std::string cache_dir;
  int threads = 0;  // 0 = all cores
  double checkpoint_seconds = 30;
};

struct ReportArgs {
  std::vector<std::string> records;  // record folders or ids (record_history.h); several: one table
  std::string records_root;          // "" for $SEQFLOW_RECORDS or out
  std::string md_file;   // default DIR/report.md
  std::string csv_file;  // default DIR/report.csv
  bool plots = false;    // an SVG beside every table the record's kinds declare (paths, traces)
  bool html = false;     // DIR/report.html: graph, tables, plots and node timings in one file
  std::string rows = "settings";  // the table's rows: "settings", or "systems" (engine/record/report.h)
};

// `seqflow runs`: the run records under a records root (record_history.h).
struct RunsArgs {
  std::vector<std::string> pipelines;  // only these pipelines' records; all when empty
  std::string records_root;            // "" for $SEQFLOW_RECORDS or out
  int limit = 0;                       // the newest this many runs; 0 for all
  bool json = false;
};

// `seqflow diff A B`.
struct DiffArgs {
  std::string a, b;          // record folders or ids
  std::string records_root;  // "" for $SEQFLOW_RECORDS or out
  std::string format = "text";  // text, md, json or html
  std::string file;             // "" for stdout
};

int RunCommand(const RunArgs& args);
int RunNodeCommand(const RunNodeArgs& args);
int PlanCommand(const RunArgs& args);
// Graphviz dot on stdout, or with `svg_file` an SVG drawing (Graphviz's when `dot` is on PATH).
int GraphCommand(const PipelineArgs& args, const std::string& svg_file);
int KindsCommand(const std::string& kind, bool markdown);
// The JSON Schema of the pipeline language (pipeline_schema.h) on stdout.
int SchemaCommand();
int CacheLsCommand(const std::string& cache_dir);
// gc and rm remove nothing, and exit 3, while a run, a task or another gc holds the cache
// (cache_leases.h); 2 for a folder that is not a seqflow cache.
int CacheGcCommand(const std::string& cache_dir, double keep_days);
int CacheRmCommand(const std::string& cache_dir, const std::string& kind);
int ReportCommand(const ReportArgs& args);
int RunsCommand(const RunsArgs& args);
int DiffCommand(const DiffArgs& args);

}  // namespace seqflow::cli

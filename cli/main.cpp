// seqflow: run, plan and inspect YAML pipelines of semi-supervised sequence-labeling experiments.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "cli/build_info.h"
#include "cli/commands.h"
#include "cli/completion.h"
#include "cli/huge_pages.h"
#include "engine/api/registry.h"

namespace {

using seqflow::cli::PipelineArgs;
using seqflow::cli::RunArgs;

void AddPipelineOptions(CLI::App* cmd, PipelineArgs& p) {
  cmd->add_option("pipeline", p.path, "pipeline YAML file")->required();
  cmd->add_option("--set", p.sets, "override a var (k=v) or a node field (NODE.FIELD=v)");
  cmd->add_option("--ablation", p.ablation, "run only this ablation axis (default: the grid of all axes)");
}

void AddRunOptions(CLI::App* cmd, RunArgs& a) {
  AddPipelineOptions(cmd, a.pipeline);
  cmd->add_option("--force", a.force, "recompute NODE and everything that depends on it");
  cmd->add_option("--cache", a.cache_dir, "cache directory (default $SEQFLOW_CACHE or .seqflow/cache)");
}

// The index of the first word from `first` on that is not one of `group`'s options or their values
// (argc when there is none).
int FirstWord(const CLI::App& group, int argc, char** argv, int first) {
  for (int i = first; i < argc; ++i) {
    const std::string word = argv[i];
    if (word.rfind('-', 0) != 0) return i;
    const CLI::Option* option = group.get_option_no_throw(word);
    if (word.find('=') == std::string::npos && option != nullptr && option->get_expected_min() > 0) ++i;
  }
  return argc;
}

// An error naming `word` and the nearest of `group`'s commands when `word` is none of them: CLI11
// would say only that a subcommand is required.
std::optional<std::string> UnknownCommand(const CLI::App& group, const std::string& word) {
  std::vector<std::string> names;
  for (const CLI::App* sub : group.get_subcommands([](const CLI::App*) { return true; }))
    names.push_back(sub->get_name());
  if (std::find(names.begin(), names.end(), word) != names.end()) return std::nullopt;
  const std::string near = seqflow::NearestName(word, names);
  return "unknown command '" + word + "'" + (near.empty() ? "" : " — did you mean '" + near + "'?") + " (" +
         (group.get_parent() == nullptr ? "seqflow" : "seqflow " + group.get_name()) + " --help lists them)";
}

// The long and short names of `cmd`'s options ("--set", "-j", "--threads").
std::vector<std::string> OptionNames(const CLI::App& cmd) {
  std::vector<std::string> names;
  for (const CLI::Option* option : cmd.get_options()) {
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
    for (const std::string& name : option->get_snames()) names.push_back("-" + name);
  }
  return names;
}

}  // namespace

int main(int argc, char** argv) {
  seqflow::cli::RestartWithHugePages(argv);
  const seqflow::Status isa = seqflow::cli::ApplyIsaChoice(std::getenv("SEQFLOW_ISA"));
  if (!isa.ok()) {
    std::fprintf(stderr, "error: %s\n", isa.message().c_str());
    return 2;
  }
  CLI::App app{"seqflow: semi-supervised sequence-labeling experiments as cached YAML pipelines"};
  app.set_version_flag("--version", seqflow::cli::BuildDescription());
  app.require_subcommand(1);
  app.footer(
      "Exit codes: 0 done; 1 a node failed, or a file could not be written; 2 the pipeline or the command line is "
      "invalid (file:line:col and the fix); 3 cache gc or rm while a run holds the cache; 130 interrupted.\n"
      "seqflow COMMAND --help shows an example of each command.");
  int code = 0;

  RunArgs run;
  run.command_line.assign(argv, argv + argc);
  CLI::App* run_cmd = app.add_subcommand("run", "run a pipeline (cached nodes are loaded, not run)");
  AddRunOptions(run_cmd, run);
  run_cmd->add_option("--out", run.out_dir,
                      "write the run record (summary.json, resolved pipelines, attachments) to DIR (default: a new "
                      "folder ROOT/PIPELINE/TIME-ID)");
  run_cmd->add_flag("--replace", run.replace_out, "with --out: remove the earlier record DIR holds");
  run_cmd->add_option("--records", run.records_root,
                      "ROOT of the run records written without --out (default $SEQFLOW_RECORDS or out)");
  run_cmd->add_option("-j,--threads", run.threads, "worker threads (default: all cores)");
  run_cmd->add_option("--checkpoint-seconds", run.checkpoint_seconds,
                      "save an iterative node's state this often, to resume after a kill (0: every iteration)")
      ->check(CLI::NonNegativeNumber);
  run_cmd
      ->add_option("--memory-mb", run.memory_mb,
                   "local: nodes computing at once may declare (seqflow kinds: memory) this many MB together; a "
                   "node declaring more runs alone (default: the machine's memory; 0: no budget)")
      ->check(CLI::NonNegativeNumber);
  seqflow::cli::ExecutorArgs& exec = run.executor;
  run_cmd
      ->add_option("--executor", exec.executor,
                   "where nodes are computed: local (this process), processes (a run-node child per node) or "
                   "slurm (job arrays)")
      ->check(CLI::IsMember({"local", "processes", "slurm"}));
  run_cmd->add_option("--partition", exec.partition, "slurm: the partition to submit to");
  run_cmd
      ->add_option("--max-jobs", exec.max_jobs,
                   "slurm: tasks of one array running at once (sbatch --array=...%N); processes: children at once "
                   "(default: cores)")
      ->check(CLI::NonNegativeNumber);
  run_cmd
      ->add_option("--bundle", exec.bundle,
                   "slurm: node instances one array task runs in turn (spares short nodes a job start each)")
      ->check(CLI::PositiveNumber);
  run_cmd->add_option("--sbatch-arg", exec.sbatch_args, "slurm: an argument passed to every sbatch (repeatable)")
      ->allow_extra_args(false);
  run_cmd->add_option("--retries", exec.retries, "slurm: resubmit a failed task up to K times")
      ->check(CLI::NonNegativeNumber);
  run_cmd->add_option("--task-threads", exec.task_threads, "slurm: cores per task of a parallel kind (-c)")
      ->check(CLI::PositiveNumber);
  run_cmd
      ->add_option("--task-processes", exec.task_processes,
                   "slurm, processes: MPI ranks per task of a data-parallel kind (srun --mpi=pmix / mpirun -np)")
      ->check(CLI::PositiveNumber);
  run_cmd->add_option("--poll-seconds", exec.poll_seconds, "slurm and processes executors: seconds between polls of the tasks")
      ->check(CLI::PositiveNumber);
  run_cmd->footer("Example: seqflow run pipelines/conll2000_hmm.yaml --set min_count=3 --ablation decoder");
  run_cmd->callback([&] { code = seqflow::cli::RunCommand(run); });

  seqflow::cli::RunNodeArgs run_node;
  CLI::App* run_node_cmd = app.add_subcommand(
      "run-node", "compute one node instance from inputs in the cache and publish it (what a cluster task runs)");
  run_node_cmd->add_option("key", run_node.key, "the instance's cache key (the sweep wrote CACHE/tasks/KEY.json)");
  run_node_cmd->add_option("--list", run_node.list_file, "the key is line $SLURM_ARRAY_TASK_ID of this file");
  run_node_cmd->add_option("--pipeline", run_node.pipeline.path, "or: the pipeline file, with --node and --run");
  run_node_cmd->add_option("--set", run_node.pipeline.sets, "with --pipeline: override a var or a node field");
  run_node_cmd->add_option("--ablation", run_node.pipeline.ablation, "with --pipeline: only this ablation axis");
  run_node_cmd->add_option("--run", run_node.run, "with --pipeline: the run, from 1 (as `seqflow run` counts them)")
      ->check(CLI::PositiveNumber);
  run_node_cmd->add_option("--node", run_node.node, "with --pipeline: the node's name");
  run_node_cmd->add_option("--cache", run_node.cache_dir, "cache directory (default $SEQFLOW_CACHE or .seqflow/cache)");
  run_node_cmd->add_option("-j,--threads", run_node.threads, "worker threads (default: all cores)");
  run_node_cmd->add_option("--checkpoint-seconds", run_node.checkpoint_seconds,
                           "save an iterative node's state this often (0: every iteration)")
      ->check(CLI::NonNegativeNumber);
  run_node_cmd->footer("Example: seqflow run-node --pipeline p.yaml --run 2 --node hmm --cache CACHE");
  run_node_cmd->callback([&] { code = seqflow::cli::RunNodeCommand(run_node); });

  RunArgs plan;
  CLI::App* plan_cmd = app.add_subcommand("plan", "show what would run and why");
  AddRunOptions(plan_cmd, plan);
  plan_cmd->footer("Example: seqflow plan pipelines/conll2000_hmm.yaml --set min_count=3");
  plan_cmd->callback([&] { code = seqflow::cli::PlanCommand(plan); });

  PipelineArgs graph;
  std::string graph_svg;
  CLI::App* graph_cmd = app.add_subcommand("graph", "print the pipeline's DAG as Graphviz dot, or draw it as SVG");
  AddPipelineOptions(graph_cmd, graph);
  graph_cmd->add_option("--svg", graph_svg, "write an SVG drawing (Graphviz's dot layout)");
  graph_cmd->footer("Example: seqflow graph pipelines/conll2000_hmm.yaml --svg graph.svg");
  graph_cmd->callback([&] { code = seqflow::cli::GraphCommand(graph, graph_svg); });

  std::string kind;
  bool kinds_markdown = false;
  CLI::App* kinds_cmd = app.add_subcommand("kinds", "list node kinds, or describe one");
  kinds_cmd->add_option("kind", kind, "a kind name");
  kinds_cmd->add_flag("--markdown", kinds_markdown, "describe every kind as Markdown (docs/reference/kinds.md)");
  kinds_cmd->footer("Example: seqflow kinds hmm.em");
  kinds_cmd->callback([&] { code = seqflow::cli::KindsCommand(kind, kinds_markdown); });
  CLI::App* schema_cmd =
      app.add_subcommand("schema", "write the JSON Schema of pipeline files (for YAML editors) to stdout");
  schema_cmd->footer("Example: seqflow schema > seqflow.schema.json");
  schema_cmd->callback([&] { code = seqflow::cli::SchemaCommand(); });

  std::string cache_dir;
  double keep_days = 30;
  std::string rm_kind;
  CLI::App* cache_cmd = app.add_subcommand("cache", "inspect or prune the cache");
  cache_cmd->add_option("--cache", cache_dir, "cache directory");
  cache_cmd->footer("Example: seqflow cache gc --keep-days 7");
  cache_cmd->require_subcommand(1);
  CLI::App* ls = cache_cmd->add_subcommand("ls", "list entries");
  ls->callback([&] { code = seqflow::cli::CacheLsCommand(cache_dir); });
  CLI::App* gc = cache_cmd->add_subcommand(
      "gc", "remove entries unused for N days, and stale run histories (exit 3 while a run uses the cache)");
  gc->add_option("--keep-days", keep_days, "keep entries used (and run histories written) within this many days");
  gc->callback([&] { code = seqflow::cli::CacheGcCommand(cache_dir, keep_days); });
  CLI::App* rm = cache_cmd->add_subcommand("rm", "remove every entry of a kind");
  rm->add_option("kind", rm_kind, "node kind")->required();
  rm->callback([&] { code = seqflow::cli::CacheRmCommand(cache_dir, rm_kind); });
  // `cache ls --cache DIR` as well as `cache --cache DIR ls`.
  for (CLI::App* sub : {ls, gc, rm}) sub->fallthrough();

  seqflow::cli::ReportArgs report;
  CLI::App* report_cmd = app.add_subcommand("report", "tables (and plots) of run records (a folder, an id or a pipeline name)");
  report_cmd
      ->add_option("record", report.records,
                   "a run record: its folder, or its id under the records root (seqflow runs); several: one table")
      ->required();
  report_cmd->add_option("--records", report.records_root, "ROOT of the records (default $SEQFLOW_RECORDS or out)");
  report_cmd->add_option("--md", report.md_file, "Markdown table file (default DIR/report.md)");
  report_cmd->add_option("--csv", report.csv_file, "CSV table file (default DIR/report.csv)");
  report_cmd->add_flag("--plots", report.plots,
                       "an SVG beside every path table and training trace, and learning curves");
  report_cmd->add_flag("--html", report.html, "DIR/report.html: graph, tables, plots and node times in one file");
  report_cmd
      ->add_option("--rows", report.rows,
                   "the table's rows: settings (one per ablation setting), or systems (one per setting and "
                   "evaluator, and per system of eval.compare; a column per metric)")
      ->check(CLI::IsMember({"settings", "systems"}));
  report_cmd->footer("Example: seqflow report conll2000-hmm --html   (the newest record; or: seqflow report A B)");
  report_cmd->callback([&] { code = seqflow::cli::ReportCommand(report); });

  seqflow::cli::RunsArgs runs;
  CLI::App* runs_cmd = app.add_subcommand("runs", "the run records kept so far, newest first (a line per run)");
  runs_cmd->add_option("pipeline", runs.pipelines, "only these pipelines (by name)");
  runs_cmd->add_option("--records", runs.records_root, "ROOT of the records (default $SEQFLOW_RECORDS or out)");
  runs_cmd->add_option("-n,--limit", runs.limit, "only the newest N runs")->check(CLI::NonNegativeNumber);
  runs_cmd->add_flag("--json", runs.json, "every field as JSON, for other tools");
  runs_cmd->footer("Example: seqflow runs conll2000-hmm -n 10");
  runs_cmd->callback([&] { code = seqflow::cli::RunsCommand(runs); });

  seqflow::cli::DiffArgs diff;
  CLI::App* diff_cmd = app.add_subcommand(
      "diff", "what differs between two run records: parameters, metrics side by side with deltas and p-values");
  diff_cmd->add_option("a", diff.a, "a run record: its folder, or its id (seqflow runs)")->required();
  diff_cmd->add_option("b", diff.b, "the record to compare it with")->required();
  diff_cmd->add_option("--records", diff.records_root, "ROOT of the records (default $SEQFLOW_RECORDS or out)");
  diff_cmd->add_option("--format", diff.format, "text, md, json or html")
      ->check(CLI::IsMember({"text", "md", "json", "html"}));
  diff_cmd->add_option("-o,--output", diff.file, "write to FILE instead of stdout");
  diff_cmd->footer("Example: seqflow diff conll2000-hmm~1 conll2000-hmm --format md -o diff.md");
  diff_cmd->callback([&] { code = seqflow::cli::DiffCommand(diff); });

  std::string shell;
  CLI::App* completion_cmd = app.add_subcommand("completion", "print a shell script that completes seqflow's commands");
  completion_cmd->add_option("shell", shell, "bash or zsh")->required()->check(CLI::IsMember({"bash", "zsh"}));
  completion_cmd->footer("Example: eval \"$(seqflow completion bash)\"   (in ~/.bashrc; zsh: completion zsh)");
  completion_cmd->callback([&] {
    std::vector<std::string> top = {"--help", "--version"};
    seqflow::cli::CommandWords commands;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
      top.push_back(sub->get_name());
      std::vector<std::string> words = OptionNames(*sub);
      for (const CLI::App* subsub : sub->get_subcommands([](const CLI::App*) { return true; })) {
        words.push_back(subsub->get_name());
        commands[sub->get_name() + " " + subsub->get_name()] = OptionNames(*subsub);
      }
      commands[sub->get_name()] = words;
    }
    std::vector<std::string> kinds;
    for (const seqflow::KindSpec* k : seqflow::cli::TheRegistry().Kinds()) kinds.push_back(k->name);
    std::printf("%s", seqflow::cli::CompletionScript(shell, top, commands, kinds).c_str());
  });

  std::optional<std::string> unknown;
  if (const int command = FirstWord(app, argc, argv, 1); command < argc) {
    unknown = UnknownCommand(app, argv[command]);
    if (std::string(argv[command]) == "cache")
      if (const int sub = FirstWord(*cache_cmd, argc, argv, command + 1); sub < argc)
        unknown = UnknownCommand(*cache_cmd, argv[sub]);
  }
  if (unknown) {
    std::fprintf(stderr, "error: %s\n", unknown->c_str());
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  return code;
}

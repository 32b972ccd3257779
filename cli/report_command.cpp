// `seqflow report DIR`: the comparison table of a run record on stdout (with `--rows systems`
// one row per setting and evaluator), as Markdown and CSV files, the record's metrics as a long
// table (DIR/metrics.csv, DIR/metrics.json), with --plots an SVG beside every table attachment
// the record's kinds declare (homotopy paths, training traces) plus the learning curves, and
// with --html DIR/report.html.
#include <cstdio>

#include "cli/commands.h"
#include "engine/base/log.h"
#include "engine/record/html_report.h"
#include "engine/record/overlay_plots.h"
#include "engine/record/record_folder.h"
#include "engine/record/record_history.h"
#include "engine/record/record_merge.h"
#include "engine/record/report.h"
#include "engine/record/run_record.h"
#include "engine/record/selection_markers.h"
#include "engine/record/svg_plot.h"
#include "engine/record/tidy_table.h"

namespace seqflow::cli {
namespace {

// The plot of a declared table attachment, titled by what it shows and, among several runs, by the
// run ("sweep: metric against λ (run 2: decoder=decode.sms)"); on a λ axis, with the λ each
// selector reading the node chose.
Result<LinePlot> LoadPlot(const std::string& dir, const PipelineRecord& record, const DeclaredAttachment& table,
                          Env* env) {
  SEQFLOW_ASSIGN_OR_RETURN(std::string csv, env->ReadFile(JoinPath(dir, table.path)));
  SEQFLOW_ASSIGN_OR_RETURN(LinePlot plot, TablePlot(csv, table.path, *table.spec));
  plot.title = TablePlotTitle(table.node, plot);
  if (record.runs.size() > 1) {
    const RunRecord& run = record.runs[table.run];
    plot.title += " (run " + std::to_string(table.run + 1) + ": " +
                  RunLabel(run) + ")";
  }
  if (table.spec->x_is_lambda) {
    std::vector<PlotMarker> chosen = SelectionMarkers(record, table.run, table.node);
    plot.markers.insert(plot.markers.end(), chosen.begin(), chosen.end());
  }
  return plot;
}

// DIR/run-1/sweep.path.csv -> DIR/run-1/sweep.path.svg.
Status WritePlot(const std::string& dir, const PipelineRecord& record, const DeclaredAttachment& table, Env* env) {
  SEQFLOW_ASSIGN_OR_RETURN(LinePlot plot, LoadPlot(dir, record, table, env));
  const std::string csv_path = JoinPath(dir, table.path);
  const size_t dot = csv_path.rfind('.');
  const std::string svg_path = (dot > csv_path.rfind('/') ? csv_path.substr(0, dot) : csv_path) + ".svg";
  SEQFLOW_RETURN_IF_ERROR(env->WriteFileAtomic(svg_path, RenderSvg(plot)));
  LogInfo("wrote " + svg_path);
  return Status::Ok();
}

// DIR/curve.<metric>.svg for each learning curve of the table (LearningCurvePlots).
bool WriteLearningCurves(const std::string& dir, const ReportTable& table, Env* env) {
  bool ok = true;
  for (const LinePlot& plot : LearningCurvePlots(table)) {
    const std::string path = JoinPath(dir, "curve." + plot.y_label + ".svg");
    Status written = env->WriteFileAtomic(path, RenderSvg(plot));
    if (written.ok())
      LogInfo("wrote " + path);
    else
      LogError(path + ": " + written.ToString()), ok = false;
  }
  return ok;
}

// The text of every table attachment of the record, by its path; unreadable ones left out.
std::map<std::string, std::string> ReadTables(const std::string& dir, const PipelineRecord& record, Env* env) {
  std::map<std::string, std::string> tables;
  for (const DeclaredAttachment& t : AttachmentsOf(record, AttachmentType::kTable))
    if (Result<std::string> text = env->ReadFile(JoinPath(dir, t.path)); text.ok()) tables[t.path] = *text;
  return tables;
}

// Returns false if any plot could not be written (each failure logged).
bool WritePlots(const std::string& dir, const PipelineRecord& record, const ReportTable& table, Env* env) {
  bool ok = WriteLearningCurves(dir, table, env);
  std::vector<DeclaredAttachment> tables = AttachmentsOf(record, AttachmentType::kTable);
  if (tables.empty()) LogInfo("no node of " + dir + " attached a table to plot (a path or a training trace)");
  for (const DeclaredAttachment& t : tables) {
    Status written = WritePlot(dir, record, t, env);
    if (!written.ok()) LogError(JoinPath(dir, t.path) + ": " + written.ToString()), ok = false;
  }
  for (const OverlaidPlot& overlaid : OverlaidTablePlots(record, ReadTables(dir, record, env))) {
    const std::string path = JoinPath(dir, overlaid.file);
    Status written = env->WriteFileAtomic(path, RenderSvg(overlaid.plot));
    if (written.ok())
      LogInfo("wrote " + path);
    else
      LogError(path + ": " + written.ToString()), ok = false;
  }
  return ok;
}

// DIR/report.html with the plots of every table attachment. Returns false if the page or any
// plot could not be made (each failure logged; the page is written without that plot).
bool WriteHtml(const std::string& dir, const PipelineRecord& record, const ReportTable& table,
               const SentenceFiles& sentences, Env* env) {
  bool ok = true;
  std::vector<HtmlPlot> plots;
  for (const LinePlot& curve : LearningCurvePlots(table)) plots.push_back({curve.title, RenderSvg(curve)});
  // A table several runs attached is drawn once, every run's lines together.
  const std::vector<DeclaredAttachment> tables = AttachmentsOf(record, AttachmentType::kTable);
  std::map<std::pair<std::string, std::string>, int> runs_of;
  for (const DeclaredAttachment& t : tables) ++runs_of[{t.node, t.spec->suffix}];
  for (const OverlaidPlot& overlaid : OverlaidTablePlots(record, ReadTables(dir, record, env)))
    plots.push_back({overlaid.plot.title, RenderSvg(overlaid.plot)});
  for (const DeclaredAttachment& t : tables) {
    if (runs_of[{t.node, t.spec->suffix}] > 1) continue;
    Result<LinePlot> plot = LoadPlot(dir, record, t, env);
    if (plot.ok())
      plots.push_back({plot->title, RenderSvg(*plot)});
    else
      LogError(JoinPath(dir, t.path) + ": " + plot.status().ToString()), ok = false;
  }
  std::string path = JoinPath(dir, "report.html");
  Status written = env->WriteFileAtomic(path, RenderHtmlReport(record, plots, sentences));
  if (!written.ok()) {
    LogError(path + ": " + written.ToString());
    return false;
  }
  LogInfo("wrote " + path);
  return ok;
}

// Writes each (path, text); false, the failure logged, at the first that cannot be written.
bool WriteAll(const std::vector<std::pair<std::string, std::string>>& files, Env* env) {
  for (const auto& [path, text] : files) {
    Status written = env->WriteFileAtomic(path, text);
    if (!written.ok()) {
      LogError(written.ToString());
      return false;
    }
  }
  return true;
}

// The records of `seqflow report A B ...` in one table, on stdout and in the --md and --csv files
// asked for (the plots and the page belong to one record's folder).
int ReportSeveral(const ReportArgs& args, const std::vector<NamedRecord>& records, Env* env) {
  if (args.plots || args.html) {
    LogError("--plots and --html draw one record, in its folder: give one record, or leave them out");
    return 2;
  }
  const MergedRecord merged = MergeRecords(records);
  const ReportTable table = args.rows == "systems" ? BuildSystemsReport(merged.record, merged.sentences)
                                                   : BuildReport(merged.record, merged.sentences);
  std::printf("%s", RenderText(table).c_str());
  std::fflush(stdout);
  std::vector<std::pair<std::string, std::string>> files;
  if (!args.md_file.empty()) files.emplace_back(args.md_file, RenderMarkdown(table));
  if (!args.csv_file.empty()) files.emplace_back(args.csv_file, RenderCsv(table));
  return WriteAll(files, env) ? 0 : 1;
}

}  // namespace

int ReportCommand(const ReportArgs& args) {
  Env* env = Env::Default();
  std::vector<NamedRecord> records;
  std::string dir;  // the last record's folder
  for (const std::string& ref : args.records) {
    Result<FoundRecord> found = ResolveRecord(ref, RecordsRoot(args.records_root), env);
    if (!found.ok()) {
      LogError(found.status().ToString());
      return 2;
    }
    dir = found->dir;
    SentenceFiles sentences = ReadSentenceFiles(found->dir, found->record, env);
    records.push_back({ref, std::move(found->record), std::move(sentences)});
  }
  if (records.size() > 1) return ReportSeveral(args, records, env);
  const PipelineRecord& record = records.front().record;
  const SentenceFiles& sentences = records.front().sentences;
  const ReportTable table = BuildReport(record, sentences);  // the plots' and the page's
  const ReportTable shown = args.rows == "systems" ? BuildSystemsReport(record, sentences) : table;
  std::printf("%s", RenderText(shown).c_str());
  std::fflush(stdout);
  std::string md = args.md_file.empty() ? JoinPath(dir, "report.md") : args.md_file;
  std::string csv = args.csv_file.empty() ? JoinPath(dir, "report.csv") : args.csv_file;
  const TidyTable tidy = BuildTidyTable(record);
  if (!WriteAll({{md, RenderMarkdown(shown)},
                 {csv, RenderCsv(shown)},
                 {JoinPath(dir, "metrics.csv"), TidyCsv(tidy)},
                 {JoinPath(dir, "metrics.json"), TidyJson(tidy)}},
                env))
    return 1;
  bool ok = !args.plots || WritePlots(dir, record, table, env);
  if (args.html) ok = WriteHtml(dir, record, table, sentences, env) && ok;
  return ok ? 0 : 1;
}

}  // namespace seqflow::cli

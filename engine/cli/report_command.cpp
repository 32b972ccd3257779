// `seqflow report DIR`: the comparison table of a run record on stdout, as Markdown and CSV
// files, with --plots an SVG beside every homotopy path table and training trace, and with --html
// DIR/report.html.
#include <cstdio>

#include "engine/base/log.h"
#include "engine/cli/commands.h"
#include "engine/record/html_report.h"
#include "engine/record/report.h"
#include "engine/record/selection_markers.h"
#include "engine/record/svg_plot.h"

namespace seqflow::cli {
namespace {

constexpr std::string_view kPathSuffix = ".path.csv";
constexpr std::string_view kObjectiveSuffix = ".objective.csv";

bool EndsWith(const std::string& name, std::string_view suffix) {
  return name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool IsPlottableCsv(const std::string& name) { return EndsWith(name, kPathSuffix) || EndsWith(name, kObjectiveSuffix); }

// Every *.path.csv and *.objective.csv under `dir`, depth first in name order.
Status FindPlottableCsvs(const std::string& dir, Env* env, std::vector<std::string>& found) {
  Result<std::vector<std::string>> names = env->ListDir(dir);
  if (!names.ok()) return names.status();
  for (const std::string& name : *names) {
    std::string path = JoinPath(dir, name);
    Result<FileStat> stat = env->Stat(path);
    if (!stat.ok()) return stat.status();
    if (stat->is_dir) {
      SEQFLOW_RETURN_IF_ERROR(FindPlottableCsvs(path, env, found));
    } else if (IsPlottableCsv(name)) {
      found.push_back(path);
    }
  }
  return Status::Ok();
}

// The plot of DIR/run-1/sweep.path.csv, titled "run-1/sweep.path.csv", with the λ each criterion
// chose on it (or the plot of a training trace).
Result<LinePlot> LoadPlot(const std::string& dir, const std::string& csv_path, Env* env) {
  Result<std::string> csv = env->ReadFile(csv_path);
  if (!csv.ok()) return csv.status();
  const std::string title = csv_path.substr(dir.size() + (dir.back() == '/' ? 0 : 1));
  if (EndsWith(csv_path, kObjectiveSuffix)) return ObjectiveCsvPlot(*csv, title);
  Result<LinePlot> plot = PathCsvPlot(*csv, title);
  Result<std::string> summary = env->ReadFile(JoinPath(dir, "summary.json"));
  if (!plot.ok() || !summary.ok()) return plot;
  const PathCsvOrigin origin = PathCsvOriginOf(title);
  Result<std::vector<PlotMarker>> chosen = SelectionMarkers(*summary, origin.run, origin.node);
  if (chosen.ok()) plot->markers.insert(plot->markers.end(), chosen->begin(), chosen->end());
  return plot;
}

// DIR/run-1/sweep.path.csv -> DIR/run-1/sweep.path.svg.
Status WritePlot(const std::string& dir, const std::string& csv_path, Env* env) {
  Result<LinePlot> plot = LoadPlot(dir, csv_path, env);
  if (!plot.ok()) return plot.status();
  std::string svg_path = csv_path.substr(0, csv_path.size() - 4) + ".svg";
  SEQFLOW_RETURN_IF_ERROR(env->WriteFileAtomic(svg_path, RenderSvg(*plot)));
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

// Returns false if any plot could not be written (each failure logged).
bool WritePlots(const std::string& dir, const ReportTable& table, Env* env) {
  bool curves = WriteLearningCurves(dir, table, env);
  std::vector<std::string> csvs;
  Status listed = FindPlottableCsvs(dir, env, csvs);
  if (!listed.ok()) {
    LogError(listed.ToString());
    return false;
  }
  if (csvs.empty()) LogInfo("no *.path.csv or *.objective.csv under " + dir + ": no path or trace plots");
  bool ok = curves;
  for (const std::string& csv : csvs) {
    Status written = WritePlot(dir, csv, env);
    if (!written.ok()) LogError(csv + ": " + written.ToString()), ok = false;
  }
  return ok;
}

// The evaluators' sentences.csv files of a run record (DIR/*.sentences.csv and
// DIR/run-*/*.sentences.csv), by path relative to DIR; unreadable ones are left out.
SentenceFiles ReadSentenceFiles(const std::string& dir, Env* env) {
  constexpr std::string_view kSuffix = ".sentences.csv";
  SentenceFiles files;
  auto read_folder = [&](const std::string& sub) {
    Result<std::vector<std::string>> names = env->ListDir(sub.empty() ? dir : JoinPath(dir, sub));
    if (!names.ok()) return;
    for (const std::string& name : *names) {
      std::string rel = sub.empty() ? name : sub + "/" + name;
      if (name.size() <= kSuffix.size() || name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0)
        continue;
      if (Result<std::string> text = env->ReadFile(JoinPath(dir, rel)); text.ok()) files[rel] = *text;
    }
  };
  read_folder("");
  Result<std::vector<std::string>> names = env->ListDir(dir);
  if (names.ok())
    for (const std::string& name : *names)
      if (name.rfind("run-", 0) == 0) read_folder(name);
  return files;
}

// DIR/report.html with the plots of every path table and training trace. Returns false if the page or any plot
// could not be made (each failure logged; the page is written without that plot).
bool WriteHtml(const std::string& dir, const std::string& summary, const ReportTable& table, Env* env) {
  std::vector<std::string> csvs;
  Status listed = FindPlottableCsvs(dir, env, csvs);
  if (!listed.ok()) LogError(listed.ToString());
  bool ok = listed.ok();
  std::vector<HtmlPlot> plots;
  for (const LinePlot& curve : LearningCurvePlots(table)) plots.push_back({curve.title, RenderSvg(curve)});
  for (const std::string& csv : csvs) {
    Result<LinePlot> plot = LoadPlot(dir, csv, env);
    if (plot.ok())
      plots.push_back({plot->title, RenderSvg(*plot)});
    else
      LogError(csv + ": " + plot.status().ToString()), ok = false;
  }
  Result<std::string> html = RenderHtmlReport(summary, plots, ReadSentenceFiles(dir, env));
  std::string path = JoinPath(dir, "report.html");
  Status written = html.ok() ? env->WriteFileAtomic(path, *html) : html.status();
  if (!written.ok()) {
    LogError(path + ": " + written.ToString());
    return false;
  }
  LogInfo("wrote " + path);
  return ok;
}

}  // namespace

int ReportCommand(const ReportArgs& args) {
  Env* env = Env::Default();
  std::string summary_path = JoinPath(args.dir, "summary.json");
  Result<std::string> summary = env->ReadFile(summary_path);
  if (!summary.ok()) {
    LogError(summary.status().ToString() + " (is " + args.dir + " the --out DIR of `seqflow run`?)");
    return 2;
  }
  Result<ReportTable> table = BuildReport(*summary, ReadSentenceFiles(args.dir, env));
  if (!table.ok()) {
    LogError(summary_path + ": " + table.status().ToString());
    return 2;
  }
  std::printf("%s", RenderText(*table).c_str());
  std::fflush(stdout);
  std::string md = args.md_file.empty() ? JoinPath(args.dir, "report.md") : args.md_file;
  std::string csv = args.csv_file.empty() ? JoinPath(args.dir, "report.csv") : args.csv_file;
  for (const auto& [path, text] : {std::pair{md, RenderMarkdown(*table)}, std::pair{csv, RenderCsv(*table)}}) {
    Status written = env->WriteFileAtomic(path, text);
    if (!written.ok()) {
      LogError(written.ToString());
      return 1;
    }
  }
  bool ok = !args.plots || WritePlots(args.dir, *table, env);
  if (args.html) ok = WriteHtml(args.dir, *summary, *table, env) && ok;
  return ok ? 0 : 1;
}

}  // namespace seqflow::cli

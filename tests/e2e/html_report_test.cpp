// `seqflow report DIR --html` end to end: a real run record of tiny_homotopy.yaml (path plots),
// its report.html rendered by headless Chromium, which must load it without a script or console
// error and whose DOM must hold the comparison table, the pipeline graph and the plots.
// Chromium is a test dependency: `make test` installs it, so a missing browser fails the test.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "tests/e2e/cli_runner.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::testutil {
namespace html_report_test {

namespace fs = std::filesystem;

constexpr char kChromium[] = "/usr/bin/chromium";

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// Runs `argv` (looked up on PATH) with stdout and stderr to files in `dir`; waits for it.
CliResult Run(const std::vector<std::string>& args, const std::string& dir) {
  std::string out_path = dir + "/stdout", err_path = dir + "/stderr";
  std::vector<std::string> storage = args;
  std::vector<char*> argv;
  for (std::string& s : storage) argv.push_back(s.data());
  argv.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(out, 1);
    ::dup2(err, 2);
    ::execvp(argv[0], argv.data());
    ::_exit(127);
  }
  CliResult r;
  r.exit_code = WaitSeqflow(pid);
  r.out = Slurp(out_path);
  r.err = Slurp(err_path);
  return r;
}

// The DOM of `page` after headless Chromium loaded it; at most 60 s.
CliResult DumpDom(const std::string& page, const std::string& dir) {
  fs::create_directories(dir + "/profile");
  return Run(
      {"timeout", "60", kChromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
       "--disable-background-networking", "--disable-component-update", "--disable-sync",
       "--user-data-dir=" + dir + "/profile", "--enable-logging=stderr", "--v=0", "--dump-dom", "file://" + page},
      dir);
}

// Chromium's log lines for page errors: uncaught exceptions and console messages (a blocked
// resource or CSP violation is logged as a console error too).
std::vector<std::string> PageErrors(const std::string& err) {
  std::vector<std::string> errors;
  std::istringstream lines(err);
  for (std::string line; std::getline(lines, line);)
    if (line.find("Uncaught") != std::string::npos || line.find("CONSOLE") != std::string::npos ||
        line.find("Refused to") != std::string::npos)
      errors.push_back(line);
  return errors;
}

TEST(HtmlReportE2eTest, ChromiumRendersTableGraphAndPlots) {
  ASSERT_TRUE(fs::exists(kChromium)) << kChromium
                                     << " is missing: headless Chromium renders report.html in this test. "
                                        "`make test` installs it (Debian package `chromium`), or run "
                                        "`sudo apt-get install chromium`.";
  std::string dir = MakeTempDir("seqflow-html-report");
  CliResult run = RunSeqflow(
      {"run", PipelinePath("tests/tiny_homotopy.yaml"), "--cache", dir + "/cache", "--out", dir + "/out", "-j", "2"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  CliResult report = RunSeqflow({"report", dir + "/out", "--html"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  std::string page = fs::absolute(dir + "/out/report.html").string();
  ASSERT_TRUE(fs::exists(page)) << report.err;

  CliResult chromium = DumpDom(page, dir);
  ASSERT_EQ(chromium.exit_code, 0) << (chromium.exit_code == 124 ? "chromium timed out after 60 s\n" : "")
                                   << chromium.err;
  std::vector<std::string> errors = PageErrors(chromium.err);
  EXPECT_TRUE(errors.empty()) << errors.size() << " page errors, first: " << errors.front();

  const std::string& dom = chromium.out;
  ASSERT_NE(dom.find("<table class=\"compare\">"), std::string::npos) << dom.substr(0, 2000);
  EXPECT_NE(dom.find("<h1>tiny-homotopy</h1>"), std::string::npos);
  // One comparison row per criterion of the ablation, each with the evaluators' columns.
  for (const char* criterion : {"monotone", "min_eig", "max_entropy", "fixed", "mle"})
    EXPECT_NE(dom.find("<td>criterion=" + std::string(criterion) + "</td>"), std::string::npos) << criterion;
  EXPECT_NE(dom.find("pick_score.f1"), std::string::npos);
  // The pipeline graph: every node of the pipeline drawn once (one shared structure).
  EXPECT_EQ(Count(dom, "class=\"graph\""), 1u);
  nlohmann::json summary = ReadSummary(dir + "/out");
  ASSERT_EQ(summary["runs"][0]["graph"]["nodes"].size(), 16u);
  EXPECT_EQ(Count(dom, "<g class=\"node\">"), 16u);
  EXPECT_EQ(Count(dom, "<g class=\"edge\">"), summary["runs"][0]["graph"]["edges"].size());
  for (const char* node : {"train", "sweep", "path", "pick", "best_score"})
    EXPECT_NE(dom.find(">" + std::string(node) + "</text>"), std::string::npos) << node;
  // The plots: one <svg> per *.path.csv and *.objective.csv (training trace) of the record, a
  // table the runs share drawn once with every run's lines, plus the graph.
  std::set<std::string> tables;
  size_t traces = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir + "/out")) {
    const std::string path = entry.path().string();
    if (path.ends_with(".path.csv") || path.ends_with(".objective.csv")) tables.insert(entry.path().filename());
    if (path.ends_with(".objective.csv")) ++traces;
  }
  const size_t plots = tables.size();
  EXPECT_GE(plots, 1u);
  EXPECT_GE(traces, 1u);
  EXPECT_NE(dom.find("<section id=\"plots\">"), std::string::npos);
  EXPECT_EQ(Count(dom, "<figure>"), plots);
  EXPECT_EQ(Count(dom, "<svg"), plots + 1);
  EXPECT_NE(dom.find("<table class=\"nodes\">"), std::string::npos);
  // Paired p-values against the best row, as in the text report.
  EXPECT_NE(dom.find(" p="), std::string::npos);
}

}  // namespace html_report_test
}  // namespace seqflow::testutil

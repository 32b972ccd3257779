// `seqflow report` end to end: the table of a real run record on stdout, report.md and
// report.csv beside it, and with --plots an SVG beside every path table.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/e2e/cli_runner.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::testutil {
namespace report_test {

namespace fs = std::filesystem;

TEST(ReportE2eTest, TinyHmmTableMarkdownAndCsv) {
  std::string dir = MakeTempDir("seqflow-report");
  CliResult run = RunSeqflow(
      {"run", PipelinePath("tests/tiny_hmm.yaml"), "--cache", dir + "/cache", "--out", dir + "/out", "-j", "2"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  CliResult report = RunSeqflow({"report", dir + "/out"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  for (const char* text :
       {"tiny-hmm: 2 runs, 2 rows", "decoder=decode.viterbi", "decoder=decode.sms", "score.f1", "tokens.accuracy", "*"})
    EXPECT_NE(report.out.find(text), std::string::npos) << text << "\n" << report.out;

  nlohmann::json summary = ReadSummary(dir + "/out");
  std::string csv = Slurp(dir + "/out/report.csv");
  std::istringstream lines(csv);
  std::string header, first;
  std::getline(lines, header);
  std::getline(lines, first);
  EXPECT_EQ(header.rfind("run,n,score.f1,score.f1.std,score.f1.n,", 0), 0u) << csv;
  char f1[64];
  std::snprintf(f1, sizeof f1, "%.10g", MetricOf(summary, "score", "f1", 0));
  std::string label = "decoder=" + summary["runs"][0]["axes"]["decoder"].get<std::string>();
  EXPECT_EQ(first.rfind(label + ",1," + f1 + ",,1,", 0), 0u) << csv;
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3) << csv;
  EXPECT_NE(Slurp(dir + "/out/report.md").find("| " + label + " | 1 |"), std::string::npos);

  CliResult elsewhere = RunSeqflow({"report", dir + "/out", "--md", dir + "/r.md", "--csv", dir + "/r.csv"});
  ASSERT_EQ(elsewhere.exit_code, 0) << elsewhere.err;
  EXPECT_EQ(Slurp(dir + "/r.csv"), csv);
  EXPECT_EQ(RunSeqflow({"report", dir + "/missing"}).exit_code, 2);
}

// repeat: 3 x two decoders on a cold cache: nodes that do not depend on the seed are computed
// once and shared by all six runs, seeded ones once per seed; the report folds the seeds into
// mean ± sd rows with paired p-values against the best decoder.
TEST(ReportE2eTest, RepeatsShareSeedFreeNodesAndReportPValues) {
  std::string dir = MakeTempDir("seqflow-report-repeat");
  CliResult run = RunSeqflow(
      {"run", PipelinePath("tests/tiny_repeat.yaml"), "--cache", dir + "/cache", "--out", dir + "/out", "-j", "2"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  nlohmann::json summary = ReadSummary(dir + "/out");
  EXPECT_EQ(summary["repeat_axis"], "repeat");
  ASSERT_EQ(summary["runs"].size(), 6u);
  for (size_t r = 0; r < 6; ++r) {
    EXPECT_EQ(summary["runs"][r]["axes"]["repeat"], std::to_string(r % 3 + 1));
    std::map<std::string, std::string> status = NodeStatuses(summary, r);
    auto computed_when = [](bool c) { return std::string(c ? "computed" : "cached"); };
    for (const char* node : {"pool", "test", "unlabeled", "vocab"})
      EXPECT_EQ(status[node], computed_when(r == 0)) << node << " run " << r;
    // decode.sms as `predicted` has the key of `sms` of the same seed.
    for (const char* node : {"train", "hmm", "sms", "predicted"})
      EXPECT_EQ(status[node], computed_when(r < 3)) << node << " run " << r;
    for (const char* node : {"score", "tokens", "compare"}) EXPECT_EQ(status[node], "computed") << node << " run " << r;
    EXPECT_TRUE(fs::exists(dir + "/out/run-" + std::to_string(r + 1) + "/score.sentences.csv"));
  }
  EXPECT_NE(Slurp(dir + "/out/run-1/compare.compare.md").find("| predicted |"), std::string::npos);

  CliResult report = RunSeqflow({"report", dir + "/out"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  for (const char* text : {"tiny-repeat: 6 runs, 2 rows", "decoder=decode.viterbi  3", "decoder=decode.sms      3",
                           " ± ", "p: paired approximate randomization vs the best row", " p="})
    EXPECT_NE(report.out.find(text), std::string::npos) << text << "\n" << report.out;
  std::istringstream lines(report.out);
  for (std::string line; std::getline(lines, line);)  // display columns: UTF-8 lead bytes
    EXPECT_LE(std::count_if(line.begin(), line.end(), [](char c) { return (c & 0xC0) != 0x80; }), 100) << line;
  std::string csv = Slurp(dir + "/out/report.csv");
  EXPECT_NE(csv.find("score.f1.p"), std::string::npos) << csv;
}

TEST(ReportE2eTest, PlotsBesideEveryPathTable) {
  std::string dir = MakeTempDir("seqflow-report-plots");
  CliResult ran = RunSeqflow(
      {"run", PipelinePath("tests/tiny_homotopy.yaml"), "--cache", dir + "/cache", "--out", dir + "/out", "-j", "2"});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  // The tiny curve's normal-flow trace lands on λ = 1 in every run (the real citations' stops short).
  nlohmann::json summary = ReadSummary(dir + "/out");
  for (size_t run = 0; run < summary["runs"].size(); ++run) {
    EXPECT_EQ(MetricOf(summary, "path", "reached_end", run), 1) << "run " << run;
    EXPECT_EQ(MetricOf(summary, "path", "lambda.final", run), 1.0) << "run " << run;
  }
  CliResult report = RunSeqflow({"report", dir + "/out", "--plots"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  int tables = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir + "/out")) {
    std::string name = e.path().filename().string();
    if (name.size() < 9 || name.substr(name.size() - 9) != ".path.csv") continue;
    ++tables;
    fs::path svg = e.path();
    svg.replace_extension(".svg");
    ASSERT_TRUE(fs::exists(svg)) << svg;
    std::string text = Slurp(svg);
    EXPECT_NE(text.find("</svg>"), std::string::npos);
    EXPECT_NE(text.find(">test.f1</title>"), std::string::npos) << svg;
  }
  EXPECT_GE(tables, 2);
}

}  // namespace report_test
}  // namespace seqflow::testutil

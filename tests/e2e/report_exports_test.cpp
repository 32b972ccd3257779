// What `seqflow report` exports beyond its table, end to end on a run of the tests' sample data
// with a numeric and a string ablation axis and two seeds: the long table of metrics that pandas
// reads in one call (Debian's python3-pandas, /usr/bin/python3), eval.compare's systems in the
// table, summary.json's attachment files, and `--rows systems`.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include "tests/e2e/cli_runner.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::testutil {
namespace report_exports_test {

namespace fs = std::filesystem;

// tiny_repeat.yaml with a second axis, numeric: 2 decoders x 2 emission smoothings x 2 seeds.
std::string Pipeline() {
  return "name: exports\n"
         "vars:\n  samples: " +
         PipelinePath("../datasets/samples") + "\n" + R"(nodes:
  pool:  {kind: read.conll, path: "${samples}/tiny_fields.train.conll", separator: tab, encoding: runs}
  test:  {kind: read.conll, path: "${samples}/tiny_fields.test.conll", separator: tab, encoding: runs}
  unlabeled: {kind: read.text, path: "${samples}/tiny_unlabeled.txt"}
  train: {kind: split, in: {data: pool}, count: 2}
  vocab: {kind: features.vocab, in: [pool, unlabeled], min_count: 1, unknown: shape}
  hmm:   {kind: hmm.supervised, in: {data: train, vocab: vocab}, smoothing: {transition: 0.2, emission: 0.05}}
  predicted: {kind: decode.viterbi, in: {model: hmm, data: test}}
  sms:       {kind: decode.sms, in: {model: hmm, data: test}}
  score:     {kind: eval.segments, in: {predicted: predicted, gold: test}}
  tokens:    {kind: eval.tokens, in: {predicted: predicted, gold: test}}
  compare:   {kind: eval.compare, in: {systems: [predicted, sms], gold: test}, names: [predicted, sms]}
ablations:
  decoder: {predicted.kind: [decode.viterbi, decode.sms]}
  emission: {hmm.smoothing.emission: [0.05, 0.1]}
repeat: 2
)";
}

// Runs the pipeline into DIR/out; returns DIR.
std::string RunExports(const std::string& name) {
  const std::string dir = MakeTempDir(name);
  std::ofstream(dir + "/exports.yaml") << Pipeline();
  CliResult run =
      RunSeqflow({"run", dir + "/exports.yaml", "--cache", dir + "/cache", "--out", dir + "/out", "-j", "2"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  return dir;
}

// stdout and stderr of `command`, and its exit status.
std::pair<int, std::string> Shell(const std::string& command) {
  std::string out;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return {-1, "popen failed"};
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
  return {pclose(pipe), out};
}

// Reads DIR/metrics.csv with one pandas.read_csv call and prints, as JSON, its columns' dtypes,
// its row count and the pivot of `value` by the three axes against (node, metric); "exact" from
// a read with float_precision="round_trip" (pandas' default parser may miss by an ulp).
constexpr char kPandasScript[] = R"(
import json, sys
import pandas
path = sys.argv[1] + "/metrics.csv"
df = pandas.read_csv(path)
exact = pandas.read_csv(path, float_precision="round_trip")
def pivot(frame):
    return frame.pivot_table(index=["decoder", "emission", "repeat"], columns=["node", "metric"], values="value")
cells = []
for ((decoder, emission, repeat), row), (_, exact_row) in zip(pivot(df).iterrows(), pivot(exact).iterrows()):
    for (node, metric), value in row.items():
        if value == value:
            cells.append({"decoder": decoder, "emission": emission, "repeat": int(repeat), "node": node,
                          "metric": metric, "value": value, "exact": exact_row[(node, metric)]})
print(json.dumps({"dtypes": {c: str(t) for c, t in df.dtypes.items()}, "rows": len(df), "cells": cells}))
)";

TEST(ReportExportsTest, PandasReadsTheMetricsTableInOneCallAndItsPivotIsTheRecord) {
  const std::string dir = RunExports("seqflow-exports");
  CliResult report = RunSeqflow({"report", dir + "/out"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  ASSERT_TRUE(fs::exists(dir + "/out/metrics.json"));
  auto [status, out] = Shell("/usr/bin/python3 -c '" + std::string(kPandasScript) + "' " + dir + "/out");
  ASSERT_EQ(status, 0) << out << "\n(needs Debian's python3-pandas: apt-get install python3-pandas)";
  const nlohmann::json read = nlohmann::json::parse(out);
  EXPECT_EQ(read["dtypes"]["run"], "int64");
  EXPECT_EQ(read["dtypes"]["emission"], "float64");
  EXPECT_EQ(read["dtypes"]["repeat"], "int64");
  EXPECT_EQ(read["dtypes"]["decoder"], "object");
  EXPECT_EQ(read["dtypes"]["value"], "float64");

  const nlohmann::json summary = ReadSummary(dir + "/out");
  ASSERT_EQ(summary["runs"].size(), 8u);
  size_t metrics = 0, finite = 0;
  std::map<std::string, double> expected;  // "decoder emission repeat node metric" -> value
  for (const nlohmann::json& run : summary["runs"]) {
    const nlohmann::json& axes = run["axes"];
    for (const auto& [node, record] : run["nodes"].items())
      for (const auto& [metric, value] : record["metrics"].items()) {
        ++metrics;
        if (value.is_null()) continue;
        ++finite;
        expected[axes["decoder"].get<std::string>() + " " + axes["emission"].get<std::string>() + " " +
                 axes["repeat"].get<std::string>() + " " + node + " " + metric] = value.get<double>();
      }
  }
  EXPECT_EQ(read["rows"], metrics) << "one row per run x node x metric";
  ASSERT_EQ(read["cells"].size(), finite);
  for (const nlohmann::json& cell : read["cells"]) {
    char emission[32];
    std::snprintf(emission, sizeof emission, "%g", cell["emission"].get<double>());
    const std::string key = cell["decoder"].get<std::string>() + " " + emission + " " +
                            std::to_string(cell["repeat"].get<int>()) + " " + cell["node"].get<std::string>() + " " +
                            cell["metric"].get<std::string>();
    ASSERT_TRUE(expected.count(key)) << key;
    EXPECT_EQ(cell["exact"].get<double>(), expected[key]) << key;
    EXPECT_DOUBLE_EQ(cell["value"].get<double>(), expected[key]) << key;
  }
}

// eval.compare declares its metrics per system, and its systems are columns of the table;
// summary.json names every attachment's file.
TEST(ReportExportsTest, CompareSystemsAreInTheTableAndTheRecordNamesItsFiles) {
  const std::string dir = RunExports("seqflow-exports-files");
  CliResult report = RunSeqflow({"report", dir + "/out"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  for (const char* column : {"compare.f1.predicted", "compare.f1.sms", "compare.accuracy.sms"})
    EXPECT_NE(Slurp(dir + "/out/report.csv").find(column), std::string::npos) << column;
  const nlohmann::json summary = ReadSummary(dir + "/out");
  EXPECT_EQ(summary["runs"][1]["nodes"]["compare"]["files"], nlohmann::json::array({"run-2/compare.compare.md"}));
  size_t files = 0;
  for (const nlohmann::json& run : summary["runs"])
    for (const auto& [node, record] : run["nodes"].items()) {
      ASSERT_EQ(record["files"].size(), record["attachments"].size()) << node;
      for (const nlohmann::json& file : record["files"]) {
        EXPECT_TRUE(fs::exists(dir + "/out/" + file.get<std::string>())) << file;
        ++files;
      }
    }
  EXPECT_EQ(files, 8u * 3) << "score and tokens: sentences.csv, compare: compare.md";
  CliResult kinds = RunSeqflow({"kinds", "eval.compare"});
  EXPECT_NE(kinds.out.find("reports f1, accuracy per system (METRIC.SYSTEM; p-value against the first as "
                           "p_METRIC.SYSTEM)"),
            std::string::npos)
      << kinds.out;
}

TEST(ReportExportsTest, SystemsAsRows) {
  const std::string dir = RunExports("seqflow-exports-rows");
  CliResult report = RunSeqflow({"report", dir + "/out", "--rows", "systems"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  for (const char* text : {"exports: 8 runs, 16 rows", "node", "system", "predicted (ref)", "f1", "accuracy"})
    EXPECT_NE(report.out.find(text), std::string::npos) << text << "\n" << report.out;
  const std::string csv = Slurp(dir + "/out/report.csv");
  EXPECT_EQ(csv.rfind("run,node,system,reference,n,f1,f1.std,f1.n,f1.p,precision,", 0), 0u) << csv;
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 17) << "4 settings x (2 systems + score + tokens)\n" << csv;
  EXPECT_NE(RunSeqflow({"report", dir + "/out", "--rows", "nodes"}).exit_code, 0);
}

}  // namespace report_exports_test
}  // namespace seqflow::testutil

// The history of run records and their comparison, on real records: conll2000_hmm.yaml's grid
// (2 decoders x 2 unknown-word models) run twice into one records root, the second time with
// --set min_count=3. Fails, never skips, without ../shared/data.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "tests/e2e/cli_runner.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow::testutil {
namespace {

namespace fs = std::filesystem;

class RecordHistoryTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(MakeTempDir("seqflow-history"));
    for (const std::vector<std::string>& extra : {std::vector<std::string>{}, {"--set", "min_count=3"}}) {
      std::vector<std::string> args = {"run", PipelinePath("conll2000_hmm.yaml"), "--cache", *dir_ + "/cache",
                                       "--records", Root()};
      args.insert(args.end(), extra.begin(), extra.end());
      CliResult r = RunSeqflow(args);
      ASSERT_EQ(r.exit_code, 0) << r.err;
    }
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete dir_;
  }
  static std::string Root() { return *dir_ + "/records"; }
  // The record folders, oldest first: by when each summary was written (their names start with the
  // UTC start time, but to the second, and the two runs may start within one).
  static std::vector<std::string> Ids() {
    std::vector<std::pair<fs::file_time_type, std::string>> records;
    for (const auto& e : fs::directory_iterator(Root() + "/conll2000-hmm"))
      if (!e.is_symlink())
        records.emplace_back(fs::last_write_time(e.path() / "summary.json"),
                             "conll2000-hmm/" + e.path().filename().string());
    std::sort(records.begin(), records.end());
    std::vector<std::string> ids;
    for (const auto& record : records) ids.push_back(record.second);
    return ids;
  }
  static std::string* dir_;
};
std::string* RecordHistoryTest::dir_ = nullptr;

TEST_F(RecordHistoryTest, RunsListsEveryRunNewestFirstWithItsSettingAndMetrics) {
  CliResult runs = RunSeqflow({"runs", "--records", Root(), "--json"});
  ASSERT_EQ(runs.exit_code, 0) << runs.err;
  const nlohmann::json lines = nlohmann::json::parse(runs.out);
  ASSERT_EQ(lines.size(), 8u) << runs.out;
  for (size_t i = 0; i < 8; ++i) {
    const bool newer = i < 4;
    EXPECT_EQ(lines[i]["set"], newer ? nlohmann::json::array({"min_count=3"}) : nlohmann::json::array()) << i;
    EXPECT_EQ(lines[i]["run"], i % 4 + 1);
    const nlohmann::json summary = ReadSummary(lines[i]["dir"].get<std::string>());
    EXPECT_EQ(lines[i]["metrics"]["score.f1"], summary["runs"][i % 4]["nodes"]["score"]["metrics"]["f1"]);
    EXPECT_EQ(lines[i]["ablation"], summary["runs"][i % 4]["ablation"]);
  }
  CliResult text = RunSeqflow({"runs", "conll2000-hmm", "--records", Root(), "-n", "2"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(std::count(text.out.begin(), text.out.end(), '\n'), 3) << text.out;
  EXPECT_NE(text.out.find("min_count=3; predicted.kind=decode.viterbi, vocab.unknown=single"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("score.f1="), std::string::npos) << text.out;
  EXPECT_EQ(RunSeqflow({"runs", "no-such-pipeline", "--records", Root()}).out, "");
}

TEST_F(RecordHistoryTest, DiffNamesTheChangedParameterAndPairsTheMetrics) {
  const std::vector<std::string> ids = Ids();
  ASSERT_EQ(ids.size(), 2u);
  CliResult diff = RunSeqflow({"diff", ids[0], "conll2000-hmm/latest", "--records", Root(), "--format", "json"});
  ASSERT_EQ(diff.exit_code, 0) << diff.err;
  const nlohmann::json d = nlohmann::json::parse(diff.out);
  ASSERT_EQ(d["params"].size(), 1u) << d["params"];
  EXPECT_EQ(d["params"][0], (nlohmann::json{{"node", "vocab"}, {"param", "min_count"}, {"a", "5"}, {"b", "3"}}));
  const nlohmann::json a = ReadSummary(Root() + "/" + ids[0]), b = ReadSummary(Root() + "/" + ids[1]);
  ASSERT_EQ(d["metrics"].size(), 4u * 4u) << "4 settings x score's f1, precision, recall, accuracy";
  for (const nlohmann::json& m : d["metrics"]) {
    EXPECT_DOUBLE_EQ(m["delta"].get<double>(), m["b"].get<double>() - m["a"].get<double>());
    ASSERT_TRUE(m["p"].is_number()) << "both records scored the same test sentences: " << m;
    EXPECT_GE(m["p"].get<double>(), 0.0);
    EXPECT_LE(m["p"].get<double>(), 1.0);
  }
  for (size_t r = 0; r < 4; ++r) {
    const nlohmann::json& first = d["metrics"][4 * r];
    EXPECT_EQ(first["metric"], "f1");
    bool matched = false;
    for (size_t s = 0; s < 4; ++s)
      if (first["a"] == a["runs"][s]["nodes"]["score"]["metrics"]["f1"] &&
          first["b"] == b["runs"][s]["nodes"]["score"]["metrics"]["f1"])
        matched = true;
    EXPECT_TRUE(matched) << first;
  }
  CliResult text = RunSeqflow({"diff", ids[0], ids[1], "--records", Root()});
  EXPECT_NE(text.out.find("vocab.min_count 5 3"), std::string::npos) << text.out;
  CliResult html = RunSeqflow({"diff", ids[0], ids[1], "--records", Root(), "--format", "html"});
  EXPECT_EQ(html.out.rfind("<!DOCTYPE html>", 0), 0u);
}

TEST_F(RecordHistoryTest, ReportPutsSeveralRecordsInOneTable) {
  const std::vector<std::string> ids = Ids();
  const std::string csv = *dir_ + "/both.csv";
  CliResult report = RunSeqflow({"report", ids[0], ids[1], "--records", Root(), "--csv", csv});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const std::string table = Slurp(csv);
  EXPECT_EQ(std::count(table.begin(), table.end(), '\n'), 1 + 8) << table;
  EXPECT_NE(table.find("record=" + ids[1]), std::string::npos) << table;
  CliResult refused = RunSeqflow({"report", ids[0], ids[1], "--records", Root(), "--html"});
  EXPECT_EQ(refused.exit_code, 2);
}

TEST_F(RecordHistoryTest, AnIdThatNamesNothingOrSeveralRecordsIsAnError) {
  CliResult none = RunSeqflow({"diff", "nothing", "conll2000-hmm", "--records", Root()});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("no run record 'nothing'"), std::string::npos) << none.err;
  CliResult several = RunSeqflow({"diff", "2", "conll2000-hmm", "--records", Root()});
  EXPECT_EQ(several.exit_code, 2);
  EXPECT_NE(several.err.find("'2' names 2 run records"), std::string::npos) << several.err;
}

}  // namespace
}  // namespace seqflow::testutil

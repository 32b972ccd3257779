#include "engine/record/record_folder.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "tests/engine/record/record_fixture.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace {

namespace fs = std::filesystem;

// Two runs; `hmm` attaches a trace, `score` its sentence counts.
PipelineRecord TwoRuns() {
  PipelineRecord record;
  record.pipeline = "demo";
  record.invocation.command = {"seqflow", "run", "demo.yaml"};
  record.invocation.started = "2026-12-07T06:15:00Z";
  for (int r = 0; r < 2; ++r) {
    RunRecord run;
    run.nodes["hmm"].kind = "hmm.em";
    run.nodes["hmm"].attachments = {"objective.csv"};
    run.nodes["score"].kind = "eval.segments";
    run.nodes["score"].attachments = {"sentences.csv"};
    record.runs.push_back(run);
  }
  return record;
}

class RecordFolderTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testutil::MakeTempDir("seqflow-record-folder"); }
  void TearDown() override { fs::remove_all(dir_); }
  void Write(const std::string& path, const std::string& text = "x") {
    fs::create_directories(fs::path(dir_ + "/" + path).parent_path());
    std::ofstream(dir_ + "/" + path) << text;
  }
  // The files of TwoRuns() as a run and `report --plots` leave them.
  void WriteRecord() {
    Write("summary.json", RunRecordJson(TwoRuns()));
    for (const char* run : {"run-1", "run-2"})
      for (const char* file : {"resolved.yaml", "hmm.objective.csv", "hmm.objective.svg", "score.sentences.csv"})
        Write(std::string(run) + "/" + file);
    for (const char* file : {"report.md", "report.csv", "report.html", "metrics.csv", "curve.f1.svg"}) Write(file);
  }
  std::string dir_;
  Env* env_ = Env::Default();
};

TEST(RecordFolderNameTest, IsTheStartToTheSecondAndSixHexDigits) {
  EXPECT_EQ(RecordFolderName("2026-12-07T06:15:00Z", 0x12345678), "20261207T061500Z-345678");
  EXPECT_EQ(RecordFolderName("2026-12-07T06:15:00Z", 0xa), "20261207T061500Z-00000a");
}

TEST(RecordsRootTest, FlagThenEnvironmentThenOut) {
  ::unsetenv("SEQFLOW_RECORDS");
  EXPECT_EQ(RecordsRoot(""), "out");
  ::setenv("SEQFLOW_RECORDS", "/records", 1);
  EXPECT_EQ(RecordsRoot(""), "/records");
  EXPECT_EQ(RecordsRoot("mine"), "mine");
  ::unsetenv("SEQFLOW_RECORDS");
}

TEST(RecordFilesTest, NameEveryFileOfEachRunAndTheReport) {
  const std::set<std::string> files = RecordFiles(TwoRuns());
  for (const char* file : {"summary.json", "run-1/resolved.yaml", "run-2/hmm.objective.csv", "run-2/hmm.objective.svg",
                           "run-1/score.sentences.csv", "report.html", "metrics.json"})
    EXPECT_TRUE(IsRecordFile(files, file)) << file;
  EXPECT_TRUE(IsRecordFile(files, "curve.accuracy.svg"));
  for (const char* file : {"run-3/resolved.yaml", "notes.txt", "run-1/curve.f1.svg", "hmm.objective.csv", "curve.svg"})
    EXPECT_FALSE(IsRecordFile(files, file)) << file;
}

TEST_F(RecordFolderTest, ANewOrEmptyFolderTakesARecord) {
  EXPECT_OK(CheckRecordFolder(dir_ + "/new", false, env_));
  EXPECT_OK(CheckRecordFolder(dir_, false, env_));
}

TEST_F(RecordFolderTest, AnEarlierRecordIsKeptUnlessReplaced) {
  WriteRecord();
  Status kept = CheckRecordFolder(dir_, false, env_);
  EXPECT_EQ(kept.code(), StatusCode::kInvalid);
  EXPECT_NE(kept.message().find("earlier run of 'demo', started 2026-12-07T06:15:00Z: pass --replace"),
            std::string::npos)
      << kept.message();
  EXPECT_OK(CheckRecordFolder(dir_, true, env_));
  EXPECT_OK(ClearRecordFolder(dir_, env_));
  EXPECT_TRUE(fs::exists(dir_));
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(RecordFolderTest, AFileTheRecordDidNotWriteIsNeverRemoved) {
  WriteRecord();
  Write("run-2/my_notes.txt");
  Status refused = CheckRecordFolder(dir_, true, env_);
  EXPECT_NE(refused.message().find("run-2/my_notes.txt, which is not part of it"), std::string::npos)
      << refused.message();
  EXPECT_FALSE(ClearRecordFolder(dir_, env_).ok());
  EXPECT_TRUE(fs::exists(dir_ + "/run-2/my_notes.txt"));
  EXPECT_TRUE(fs::exists(dir_ + "/summary.json"));
}

TEST_F(RecordFolderTest, AFolderOfOtherFilesIsNotARecord) {
  Write("thesis.tex");
  Status refused = CheckRecordFolder(dir_, true, env_);
  EXPECT_NE(refused.message().find("holds files but no run record (thesis.tex"), std::string::npos)
      << refused.message();
  Write("summary.json", "{not json");
  refused = CheckRecordFolder(dir_, true, env_);
  EXPECT_NE(refused.message().find("cannot be read; remove it by hand"), std::string::npos) << refused.message();
}

}  // namespace
}  // namespace seqflow

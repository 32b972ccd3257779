// The run record: summary.json written and read back by the one type, located errors on bad
// files, and a kind's declarations travelling from its KindSpec through the record to the report.
#include "engine/record/run_record.h"

#include <gtest/gtest.h>

#include <cmath>

#include "engine/record/report.h"
#include "engine/record/summary.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace run_record_test {

// Two runs with every field set: an evaluator with a sentence-count attachment, a trainer with
// a table declaration, a failed node with its error, a graph with an edge, a per-system
// evaluator, attachments with the files that hold them.
PipelineRecord FullRecord() {
  PipelineRecord record;
  record.pipeline = "round-trip";
  record.seconds = 12.25;
  record.repeat_axis = "repeat";
  record.invocation = {{"seqflow", "run", "p.yaml", "--set", "x=1"}, {"x=1"}, "2026-12-07T06:30:00Z", "2026-12-07T06:31:02Z",
                       "node7", "/work/p.yaml", "0123abcd", "dirty"};
  record.kinds["eval.segments"] = {
      NodeRole::kEvaluator, {"f1", "accuracy"}, {AttachmentSpec::SentenceCounts("sentences.csv")}, "", false, ""};
  AttachmentSpec path{"path.csv", AttachmentType::kTable, "lambda", "λ", {"*.f1", "entropy"}, {"entropy"}, true, true};
  record.kinds["homotopy.em_lambda_path"] = {NodeRole::kTrainer, {}, {path}, "", false, ""};
  record.kinds["homotopy.select"] = {NodeRole::kSelector, {}, {}, "lambda", false, ""};
  record.kinds["eval.compare"] = {NodeRole::kEvaluator, {"f1"}, {}, "", true, "p_"};
  for (int r = 0; r < 2; ++r) {
    RunRecord run;
    run.ablation = {{"p.criterion", r ? "monotone" : "mle"}, {"split.seed", std::to_string(r + 1)}};
    run.axes = {{"criterion", r ? "monotone" : "mle"}, {"repeat", std::to_string(r + 1)}};
    run.ok = r == 0;
    run.seconds = 3.5 + r;
    run.nodes["path"] = {"homotopy.em_lambda_path", NodeStatus::kCached, 0.125, "00ff",
                         {{"points", 41}},          {"path.csv"},        "", {}, {}};
    run.nodes["pick"] = {"homotopy.select", NodeStatus::kComputed, 0.0625, "01ab", {{"lambda", 0.1 * (r + 1)}}, {}, "", {}, {}};
    run.nodes["score"] = {"eval.segments",
                          r ? NodeStatus::kFailed : NodeStatus::kComputed,
                          1e-3,
                          "02cd",
                          {{"f1", 0.8279}, {"accuracy", 0.93}},
                          {"sentences.csv"},
                          r ? "node 'score': bad \"labels\"" : "",
                          {},
                          {}};
    run.nodes["score"].params = {{"scheme", "conlleval"}, {"weights", "[0.5,1]"}};
    run.nodes["compare"] = {
        "eval.compare", NodeStatus::kComputed, 0.5, "03ef", {{"f1.a", 0.5}, {"p_f1.b", 0.25}}, {"compare.md"}, "", {}, {}};
    for (auto& [name, node] : run.nodes)
      for (const std::string& suffix : node.attachments) node.files.push_back(AttachmentPath(r, 2, name, suffix));
    run.graph.nodes = {{"path", "homotopy.em_lambda_path"}, {"pick", "homotopy.select"}, {"score", "eval.segments"}};
    run.graph.edges = {{0, 1, "path"}, {1, 2, "predicted"}};
    record.runs.push_back(std::move(run));
  }
  return record;
}

TEST(RunRecordTest, WriteThenReadGivesTheSameRecord) {
  const PipelineRecord record = FullRecord();
  const std::string json = RunRecordJson(record);
  Result<PipelineRecord> read = ParseRunRecord(json, "summary.json");
  ASSERT_OK(read);
  EXPECT_TRUE(*read == record) << json;
  EXPECT_EQ(RunRecordJson(*read), json);
  // An empty record too.
  PipelineRecord empty;
  empty.pipeline = "empty";
  Result<PipelineRecord> read_empty = ParseRunRecord(RunRecordJson(empty), "summary.json");
  ASSERT_OK(read_empty);
  EXPECT_TRUE(*read_empty == empty);
}

TEST(RunRecordTest, NonFiniteNumbersAreWrittenAsNullAndReadAsNaN) {
  PipelineRecord record = FullRecord();
  record.seconds = INFINITY;
  record.runs[0].nodes["score"].metrics["f1"] = NAN;
  const std::string json = RunRecordJson(record);
  EXPECT_NE(json.find("\"f1\": null"), std::string::npos) << json;
  Result<PipelineRecord> read = ParseRunRecord(json, "summary.json");
  ASSERT_OK(read);
  EXPECT_TRUE(std::isnan(read->seconds));
  EXPECT_TRUE(std::isnan(read->runs[0].nodes["score"].metrics["f1"]));
}

TEST(RunRecordTest, RecordsWithoutLaterFieldsStillRead) {
  // Written before kinds, axes, graphs and attachment lists were recorded: the defaults.
  Result<PipelineRecord> read = ParseRunRecord(
      R"({"pipeline": "old", "seconds": 1, "runs": [{"ablation": {}, "ok": true, "seconds": 1,
          "nodes": {"score": {"kind": "eval.segments", "status": "computed", "seconds": 0.5, "key": "ab",
                              "metrics": {"f1": 0.5}}}}]})",
      "old/summary.json");
  ASSERT_OK(read);
  EXPECT_TRUE(read->kinds.empty());
  EXPECT_TRUE(read->runs[0].graph.nodes.empty());
  EXPECT_TRUE(read->runs[0].nodes["score"].files.empty());
  EXPECT_EQ(read->Declared("eval.segments").role, NodeRole::kOther) << "undeclared kinds have no role";
}

// The Status of parsing `json` as file "out/summary.json"; OK is a failure of the test.
Status ParseError(const std::string& json) {
  Result<PipelineRecord> read = ParseRunRecord(json, "out/summary.json");
  EXPECT_FALSE(read.ok()) << json;
  return read.status();
}

TEST(RunRecordTest, InvalidJsonIsLocatedByLineColumnAndByte) {
  Status s = ParseError("{\"pipeline\": \"p\",\n  \"runs\": [}\n");
  EXPECT_EQ(s.code(), StatusCode::kInvalid);
  EXPECT_EQ(s.loc().file, "out/summary.json");
  EXPECT_EQ(s.loc().line, 2);
  EXPECT_EQ(s.loc().col, 12);  // the "}"
  EXPECT_NE(s.message().find("invalid JSON at byte 30"), std::string::npos) << s.ToString();
  EXPECT_EQ(s.ToString().rfind("out/summary.json:2:12: invalid JSON", 0), 0u) << s.ToString();
  EXPECT_EQ(ParseError("").code(), StatusCode::kInvalid);
}

TEST(RunRecordTest, MissingFieldIsNamedByItsPath) {
  Status s = ParseError(R"({"pipeline": "p", "runs": [{"nodes": {"score": {"status": "computed"}}}]})");
  EXPECT_EQ(s.code(), StatusCode::kInvalid);
  EXPECT_EQ(s.loc().file, "out/summary.json");
  EXPECT_NE(s.message().find("/runs/0/nodes/score: missing field \"kind\""), std::string::npos) << s.ToString();
  EXPECT_NE(ParseError(R"({"pipeline": "p"})").message().find("/: missing field \"runs\""), std::string::npos);
  EXPECT_NE(ParseError(R"({"runs": []})").message().find("missing field \"pipeline\""), std::string::npos);
}

TEST(RunRecordTest, WrongTypeIsNamedByItsPath) {
  Status s = ParseError(
      R"({"pipeline": "p", "runs": [{"nodes": {"n": {"kind": "k", "status": "computed", "metrics": {"f1": "0.5"}}}}]})");
  EXPECT_NE(s.message().find("/runs/0/nodes/n/metrics/f1: expected a number, got string"), std::string::npos)
      << s.ToString();
  EXPECT_NE(ParseError(R"({"pipeline": "p", "runs": {}})").message().find("/runs: expected an array, got object"),
            std::string::npos);
  EXPECT_NE(ParseError(R"({"pipeline": "p", "runs": [{"nodes": {"n": {"kind": "k", "status": 7}}}]})")
                .message()
                .find("/runs/0/nodes/n/status: expected a string, got number"),
            std::string::npos);
  EXPECT_NE(ParseError(R"({"pipeline": "p", "runs": [{"nodes": {"n": {"kind": "k", "status": "done"}}}]})")
                .message()
                .find("unknown status \"done\""),
            std::string::npos);
  EXPECT_NE(ParseError(R"({"pipeline": "p", "kinds": {"k": {"role": "judge"}}, "runs": []})")
                .message()
                .find("/kinds/k/role: unknown role \"judge\""),
            std::string::npos);
  EXPECT_NE(ParseError(R"({"pipeline": "p", "runs": [{"nodes": {}, "graph": {"nodes": [{"name": "a", "kind": "k"}],
                          "edges": [{"from": "a", "to": "b", "port": "x"}]}}]})")
                .message()
                .find("/runs/0/graph/edges/0: the edge does not join"),
            std::string::npos);
}

// A record whose nodes do not list their files (as `seqflow run` builds it) is written with
// AttachmentPath's, so summary.json says where each attachment is; they read back into `files`,
// and readers go by them.
TEST(RunRecordTest, FilesListWhereEachAttachmentIs) {
  PipelineRecord record = FullRecord();
  for (RunRecord& run : record.runs)
    for (auto& [name, node] : run.nodes) node.files.clear();
  Result<PipelineRecord> read = ParseRunRecord(RunRecordJson(record), "summary.json");
  ASSERT_OK(read);
  EXPECT_EQ(read->runs[1].nodes["compare"].files, (std::vector<std::string>{"run-2/compare.compare.md"}));
  EXPECT_EQ(read->runs[0].nodes["path"].files, (std::vector<std::string>{"run-1/path.path.csv"}));
  EXPECT_TRUE(read->runs[0].nodes["pick"].files.empty());
  record.runs.pop_back();  // one run: no run folder
  read = ParseRunRecord(RunRecordJson(record), "summary.json");
  ASSERT_OK(read);
  EXPECT_EQ(read->runs[0].nodes["compare"].files, (std::vector<std::string>{"compare.compare.md"}));

  // Files where a record says, not where the naming rule would put them (an older layout).
  PipelineRecord listed = FullRecord();
  for (size_t r = 0; r < 2; ++r)
    for (auto& [name, node] : listed.runs[r].nodes)
      for (std::string& file : node.files) file = "r" + std::to_string(r) + "/" + file.substr(file.find('/') + 1);
  EXPECT_EQ(AttachmentFile(listed, 1, "score", "sentences.csv"), "r1/score.sentences.csv");
  EXPECT_EQ(AttachmentsOf(listed, AttachmentType::kSentenceCounts)[1].path, "r1/score.sentences.csv");
  EXPECT_EQ(AttachmentFile(listed, 0, "pick", "x.csv"), "run-1/pick.x.csv") << "not listed: the naming rule";
  EXPECT_NE(ParseError(R"({"pipeline": "p", "runs": [{"nodes": {"n": {"kind": "k", "status": "computed",
                "attachments": ["a.csv", "b.csv"], "files": ["n.a.csv"]}}}]})")
                .message()
                .find("/runs/0/nodes/n/files: lists 1 files for 2 attachments"),
            std::string::npos);
}

TEST(RunRecordTest, ReadRunRecordNamesTheFile) {
  Result<PipelineRecord> missing = ReadRunRecord(testutil::MakeTempDir("seqflow-record"), Env::Default());
  EXPECT_FALSE(missing.ok());
  EXPECT_NE(missing.status().code(), StatusCode::kInvalid);
}

TEST(RunRecordTest, AttachmentsOfFollowDeclarationsAndWhatWasAttached) {
  PipelineRecord record = FullRecord();
  record.runs[1].nodes["path"].attachments.clear();  // e.g. the node failed before attaching
  std::vector<DeclaredAttachment> tables = AttachmentsOf(record, AttachmentType::kTable);
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].run, 0u);
  EXPECT_EQ(tables[0].node, "path");
  EXPECT_EQ(tables[0].path, "run-1/path.path.csv");
  EXPECT_TRUE(tables[0].spec->x_is_lambda);
  EXPECT_EQ(AttachmentsOf(record, AttachmentType::kSentenceCounts).size(), 2u);
  EXPECT_EQ(SettingLabel({}), "base");
  EXPECT_EQ(SettingLabel({{"b", "2"}, {"a", "1"}}), "a=1, b=2");
}

// A kind the engine has never heard of, named like no evaluator, declares itself one with a
// headline metric and a sentence-count attachment: AppendRun carries the declaration into the
// record and the report makes its column.
TEST(RunRecordTest, DeclarationsTravelFromTheKindSpecToTheReport) {
  KindSpec judge = KindSpec{"judge.bleu", "1", "a fake evaluator", "Metrics", {}, {}, nullptr}
                       .As(NodeRole::kEvaluator, {"bleu"})
                       .Attaching(AttachmentSpec::SentenceCounts("counts.csv"));
  KindSpec named_like_one{"eval.x", "1", "named like an evaluator, declares nothing", "Metrics", {}, {}, nullptr};
  KindSpec systems = KindSpec{"judge.systems", "1", "a fake per-system evaluator", "Metrics", {}, {}, nullptr}
                         .As(NodeRole::kEvaluator, {"bleu"})
                         .PerSystem("p_");
  EXPECT_TRUE(systems.record.per_system);
  EXPECT_EQ(systems.record.system_p_prefix, "p_");
  Dag dag;
  dag.nodes.resize(2);
  dag.nodes[0].name = "judge", dag.nodes[0].kind = &judge, dag.nodes[0].key = "aa";
  dag.nodes[1].name = "x", dag.nodes[1].kind = &named_like_one, dag.nodes[1].key = "bb";
  RunResult result;
  result.nodes.resize(2);
  result.nodes[0].name = "judge", result.nodes[0].kind = "judge.bleu", result.nodes[0].status = NodeStatus::kComputed;
  result.nodes[0].metrics = {{"bleu", 0.25}, {"f1", 0.5}};
  result.nodes[0].attachments = {{"counts.csv", "# gold g\ncorrect_tokens,tokens\n1,2\n"}};
  result.nodes[1].name = "x", result.nodes[1].kind = "eval.x", result.nodes[1].status = NodeStatus::kComputed;
  result.nodes[1].metrics = {{"f1", 0.9}, {"accuracy", 0.9}};
  PipelineRecord record;
  record.pipeline = "fake";
  AppendRun(record, dag, result, {}, {});
  EXPECT_TRUE(record.kinds["judge.bleu"] == judge.record);
  Result<PipelineRecord> read = ParseRunRecord(RunRecordJson(record), "summary.json");
  ASSERT_OK(read);
  EXPECT_EQ(BuildReport(*read).columns, (std::vector<std::string>{"judge.bleu"}));
  std::vector<DeclaredAttachment> counts = AttachmentsOf(*read, AttachmentType::kSentenceCounts);
  ASSERT_EQ(counts.size(), 1u);
  EXPECT_EQ(counts[0].path, "judge.counts.csv");
}

}  // namespace run_record_test
}  // namespace seqflow

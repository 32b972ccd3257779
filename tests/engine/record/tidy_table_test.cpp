// The long ("tidy") table of a record's metrics: one row per run × node × metric, axis columns
// typed, collisions renamed, RFC 4180 quoting, full precision, non-finite values empty.
#include "engine/record/tidy_table.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/engine/record/record_fixture.h"

namespace seqflow {
namespace tidy_table_test {

using testkit::ParseRecord;

// Two runs: a numeric axis `emission`, a string axis `decoder`, the repeat axis, a trainer's
// metric and an evaluator's two (run 2's accuracy not finite).
std::string Summary() {
  auto run = [](const char* emission, const char* decoder, const char* seed, const char* f1, const char* accuracy) {
    return std::string(R"({"axes": {"emission": ")") + emission + R"(", "decoder": ")" + decoder + R"(", "repeat": ")" +
           seed + R"("}, "nodes": {
        "hmm": {"kind": "hmm.supervised", "status": "computed", "metrics": {"tokens": 1200}},
        "score": {"kind": "eval.segments", "status": "cached", "metrics": {"f1": )" +
           f1 + R"(, "accuracy": )" + accuracy + "}}}}";
  };
  return R"({"pipeline": "t", "repeat_axis": "repeat", "runs": [)" +
         run("0.05", "decode.viterbi", "1", "0.30000000000000004", "0.875") + "," +
         run("1e-1", "decode.sms", "2", "0.1", "null") + "]}";
}

TEST(TidyTableTest, OneRowPerRunNodeAndMetricWithTypedAxes) {
  const TidyTable t = BuildTidyTable(ParseRecord(Summary()));
  ASSERT_EQ(t.axes.size(), 3u);
  EXPECT_EQ(t.axes[0].column, "decoder");
  EXPECT_FALSE(t.axes[0].numeric);
  EXPECT_EQ(t.axes[1].column, "emission");
  EXPECT_TRUE(t.axes[1].numeric) << "0.05 and 1e-1 are numbers";
  EXPECT_EQ(t.axes[2].column, "repeat");
  EXPECT_TRUE(t.axes[2].numeric);
  ASSERT_EQ(t.rows.size(), 6u) << "2 runs x (1 trainer metric + 2 evaluator metrics)";
  EXPECT_EQ(t.rows[0].run, 1u);
  EXPECT_EQ(t.rows[0].node, "hmm") << "every node that reports metrics, evaluator or not";
  EXPECT_EQ(t.rows[1].metric, "accuracy") << "metrics by name";
  EXPECT_EQ(t.rows[5].run, 2u);
  EXPECT_EQ(t.rows[5].kind, "eval.segments");
}

TEST(TidyTableTest, CsvExactText) {
  EXPECT_EQ(TidyCsv(BuildTidyTable(ParseRecord(Summary()))),
            "run,decoder,emission,repeat,node,kind,metric,value\n"
            "1,decode.viterbi,0.05,1,hmm,hmm.supervised,tokens,1200\n"
            "1,decode.viterbi,0.05,1,score,eval.segments,accuracy,0.875\n"
            "1,decode.viterbi,0.05,1,score,eval.segments,f1,0.30000000000000004\n"
            "2,decode.sms,0.1,2,hmm,hmm.supervised,tokens,1200\n"
            "2,decode.sms,0.1,2,score,eval.segments,accuracy,\n"
            "2,decode.sms,0.1,2,score,eval.segments,f1,0.1\n");
}

TEST(TidyTableTest, JsonHasTheSameKeysNumbersAsNumbers) {
  const nlohmann::json j = nlohmann::json::parse(TidyJson(BuildTidyTable(ParseRecord(Summary()))));
  ASSERT_TRUE(j.is_array());
  ASSERT_EQ(j.size(), 6u);
  EXPECT_EQ(j[2], nlohmann::json::parse(R"({"run": 1, "decoder": "decode.viterbi", "emission": 0.05, "repeat": 1,
      "node": "score", "kind": "eval.segments", "metric": "f1", "value": 0.30000000000000004})"));
  EXPECT_EQ(j[2]["value"].get<double>(), 0.1 + 0.2) << "full precision";
  EXPECT_TRUE(j[4]["value"].is_null()) << "not finite";
  EXPECT_TRUE(j[0]["value"].is_number_integer());
  const nlohmann::ordered_json ordered =
      nlohmann::ordered_json::parse(TidyJson(BuildTidyTable(ParseRecord(Summary()))));
  std::vector<std::string> keys;
  for (const auto& [key, value] : ordered[0].items()) keys.push_back(key);
  EXPECT_EQ(keys,
            (std::vector<std::string>{"run", "decoder", "emission", "repeat", "node", "kind", "metric", "value"}));
  EXPECT_EQ(TidyJson(TidyTable{}), "[]\n");
}

TEST(TidyTableTest, AnAxisIsNumericOnlyWhenEveryValueIsAFiniteNumber) {
  const TidyTable t = BuildTidyTable(ParseRecord(R"({"pipeline": "t", "runs": [
      {"axes": {"mixed": "1", "inf": "inf", "spaced": " 2", "gap": "3", "signed": "-2.5"}, "nodes": {}},
      {"axes": {"mixed": "x", "inf": "1", "spaced": "2", "signed": "4"}, "nodes": {}}]})"));
  std::map<std::string, bool> numeric;
  for (const TidyAxis& axis : t.axes) numeric[axis.column] = axis.numeric;
  EXPECT_EQ(numeric, (std::map<std::string, bool>{
                         {"gap", true}, {"inf", false}, {"mixed", false}, {"signed", true}, {"spaced", false}}));
}

TEST(TidyTableTest, MissingAxisValuesAreEmptyAndOldRecordsUseTheAblationKeys) {
  PipelineRecord record = ParseRecord(R"({"pipeline": "t", "runs": [
      {"axes": {"lambda": "0.5"}, "nodes": {"n": {"kind": "k", "status": "computed", "metrics": {"m": 1}}}},
      {"axes": {}, "nodes": {"n": {"kind": "k", "status": "computed", "metrics": {"m": 2}}}}]})");
  EXPECT_EQ(TidyCsv(BuildTidyTable(record)), "run,lambda,node,kind,metric,value\n1,0.5,n,k,m,1\n2,,n,k,m,2\n");
  EXPECT_NE(TidyJson(BuildTidyTable(record)).find(R"("lambda":null)"), std::string::npos);
  record = ParseRecord(R"({"pipeline": "old", "runs": [{"ablation": {"predicted.kind": "decode.sms"},
      "nodes": {"n": {"kind": "k", "status": "computed", "metrics": {"m": 1}}}}]})");
  EXPECT_EQ(TidyCsv(BuildTidyTable(record)), "run,predicted.kind,node,kind,metric,value\n1,decode.sms,n,k,m,1\n");
}

TEST(TidyTableTest, AxesNamedLikeFixedColumnsArePrefixed) {
  const TidyTable t = BuildTidyTable(ParseRecord(R"({"pipeline": "t", "runs": [
      {"axes": {"run": "a", "axis.run": "b", "value": "3", "metric": "c"}, "nodes": {}}]})"));
  std::vector<std::string> columns;
  for (const TidyAxis& axis : t.axes) columns.push_back(axis.column);
  EXPECT_EQ(columns, (std::vector<std::string>{"axis.run", "axis.metric", "axis.axis.run", "axis.value"}));
  EXPECT_EQ(TidyCsv(t), "run,axis.run,axis.metric,axis.axis.run,axis.value,node,kind,metric,value\n");
}

TEST(TidyTableTest, FieldsAreQuotedPerRfc4180) {
  const TidyTable t = BuildTidyTable(ParseRecord(R"({"pipeline": "t", "runs": [
      {"axes": {"a,b": "say \"hi\"", "multi": "x\ny"},
       "nodes": {"n": {"kind": "k", "status": "computed", "metrics": {"f1,NP": 0.5}}}}]})"));
  EXPECT_EQ(TidyCsv(t),
            "run,\"a,b\",multi,node,kind,metric,value\n"
            "1,\"say \"\"hi\"\"\",\"x\ny\",n,k,\"f1,NP\",0.5\n");
}

}  // namespace tidy_table_test
}  // namespace seqflow

// `seqflow report --html`: the page escapes every text of the record, carries the comparison
// table, the pipeline graph and the plots, and per node the status and wall time of each run.
#include "engine/record/html_report.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/engine/record/record_fixture.h"

namespace seqflow {
namespace html_report_test {

using testkit::kEvaluatorKinds;
using testkit::ParseRecord;

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// Two runs of a three-node pipeline whose names, kinds, axis values and pipeline name carry
// HTML metacharacters; run 2 swaps the kind of `dec<1>` and takes `src&co` from the cache.
std::string Run(const std::string& decoder, const std::string& f1, const std::string& status) {
  return R"({"axes": {"decoder": ")" + decoder + R"("}, "ok": true, "seconds": 2.5, "nodes": {
      "src&co": {"kind": "io.read", "status": ")" +
         status + R"(", "seconds": 0.125, "metrics": {}},
      "dec<1>": {"kind": ")" +
         decoder + R"(", "status": "computed", "seconds": 1.5, "metrics": {}},
      "score": {"kind": "eval.segments", "status": "computed", "seconds": 0.25,
                "metrics": {"f1": )" +
         f1 + R"(}}},
    "graph": {"nodes": [{"name": "src&co", "kind": "io.read"}, {"name": "dec<1>", "kind": ")" +
         decoder + R"("},
                        {"name": "score", "kind": "eval.segments"}],
              "edges": [{"from": "src&co", "to": "dec<1>", "port": "in"},
                        {"from": "dec<1>", "to": "score", "port": "predicted"}]}})";
}

std::string Summary() {
  return R"({"pipeline": "a<b> & \"c\" 'd'", "seconds": 4, )" + std::string(kEvaluatorKinds) + R"(, "runs": [)" +
         Run("dec.\\\"vit\\\"", "0.5", "computed") + "," + Run("dec.<sms>", "0.75", "cached") + "]}";
}

std::string Render(const std::vector<HtmlPlot>& plots = {}) { return RenderHtmlReport(ParseRecord(Summary()), plots); }

TEST(HtmlReportTest, EscapesNamesKindsLabelsAndTitles) {
  std::string html = Render({{"run-1/<sweep>.path.csv & more", "<svg class=\"plot\"></svg>"}});
  EXPECT_NE(html.find("<h1>a&lt;b&gt; &amp; &quot;c&quot; &#39;d&#39;</h1>"), std::string::npos) << html;
  EXPECT_NE(html.find("<title>seqflow report: a&lt;b&gt; &amp;"), std::string::npos);
  EXPECT_NE(html.find("<td>src&amp;co</td>"), std::string::npos);
  EXPECT_NE(html.find("<td>dec&lt;1&gt;</td>"), std::string::npos);
  EXPECT_NE(html.find("decoder=dec.&quot;vit&quot;"), std::string::npos);
  EXPECT_NE(html.find("decoder=dec.&lt;sms&gt;"), std::string::npos);
  EXPECT_NE(html.find("<figcaption>run-1/&lt;sweep&gt;.path.csv &amp; more</figcaption>"), std::string::npos);
  // In the graph drawing too: node titles and texts, edge titles.
  EXPECT_NE(html.find(">dec&lt;1&gt;</text>"), std::string::npos);
  EXPECT_NE(html.find("<title>src&amp;co → dec&lt;1&gt; (in)</title>"), std::string::npos);
  // No raw text of the record survives anywhere.
  for (const char* raw : {"src&co", "dec<1>", "<sms>", "\"vit\"", "a<b>", "<sweep>"})
    EXPECT_EQ(html.find(raw), std::string::npos) << raw;
}

TEST(HtmlReportTest, ComparisonTableHasOneRowPerSettingAndMarksTheBest) {
  std::string html = Render();
  size_t table = html.find("<table class=\"compare\">");
  ASSERT_NE(table, std::string::npos) << html;
  std::string compare = html.substr(table, html.find("</table>", table) - table);
  EXPECT_NE(compare.find("<th>score.f1</th>"), std::string::npos) << compare;
  EXPECT_NE(compare.find("<tr><td>decoder=dec.&quot;vit&quot;</td><td class=\"num\">1</td><td class=\"num\">0.5000</td>"
                         "</tr>"),
            std::string::npos)
      << compare;
  EXPECT_NE(compare.find("<tr><td>decoder=dec.&lt;sms&gt;</td><td class=\"num\">1</td>"
                         "<td class=\"num best\" title=\"best\">0.7500</td></tr>"),
            std::string::npos)
      << compare;
  EXPECT_EQ(Count(compare, "<tr>"), 3u);  // header + two settings
}

TEST(HtmlReportTest, OneGraphSvgListingEveryKindOfASwappedNode) {
  std::string html = Render();
  // Same nodes and edges in both runs: one drawing; `dec<1>` lists both of its kinds.
  EXPECT_EQ(Count(html, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"graph\""), 1u) << html;
  EXPECT_EQ(Count(html, "<g class=\"node\">"), 3u);
  EXPECT_EQ(Count(html, "<g class=\"edge\">"), 2u);
  EXPECT_NE(html.find(">dec.&quot;vit&quot; | dec.&lt;sms&gt;</text>"), std::string::npos) << html;
  EXPECT_NE(html.find("<section id=\"graph\">"), std::string::npos);
}

TEST(HtmlReportTest, PlotsEmbeddedVerbatimInOrder) {
  std::string html = Render({{"first", "<svg id=\"p1\"></svg>"}, {"second", "<svg id=\"p2\"></svg>"}});
  size_t p1 = html.find("<figure>\n<svg id=\"p1\"></svg><figcaption>first</figcaption>");
  size_t p2 = html.find("<figure>\n<svg id=\"p2\"></svg><figcaption>second</figcaption>");
  ASSERT_NE(p1, std::string::npos) << html;
  ASSERT_NE(p2, std::string::npos);
  EXPECT_LT(p1, p2);
  EXPECT_EQ(Render().find("<section id=\"plots\">"), std::string::npos);
}

TEST(HtmlReportTest, NodeTableHasStatusAndTimePerRun) {
  std::string html = Render();
  size_t table = html.find("<table class=\"nodes\">");
  ASSERT_NE(table, std::string::npos);
  std::string nodes = html.substr(table, html.find("</table>", table) - table);
  EXPECT_NE(nodes.find("<tr><td>src&amp;co</td>"
                       "<td class=\"num computed\" title=\"io.read\">computed<br><small>0.125 s</small></td>"
                       "<td class=\"num cached\" title=\"io.read\">cached<br><small>0.125 s</small></td></tr>"),
            std::string::npos)
      << nodes;
  // Rows in the graph's topological order, then the run totals.
  size_t src = nodes.find("<td>src&amp;co</td>"), dec = nodes.find("<td>dec&lt;1&gt;</td>"),
         score = nodes.find("<td>score</td>"), total = nodes.find("<th>run total</th>");
  EXPECT_LT(src, dec);
  EXPECT_LT(dec, score);
  EXPECT_LT(score, total);
  EXPECT_NE(nodes.find("<th class=\"num\">2.500 s</th><th class=\"num\">2.500 s</th>"), std::string::npos);
}

TEST(HtmlReportTest, NoScriptAndNoFetchInThePage) {
  std::string html = Render({{"p", "<svg></svg>"}});
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http://", html.find("</head>")), html.find("http://www.w3.org/2000/svg"));
  EXPECT_NE(html.find("default-src 'none'"), std::string::npos);
}

TEST(HtmlReportTest, FailedNodeErrorInTitleEscaped) {
  std::string html = RenderHtmlReport(ParseRecord(R"({"pipeline": "p", "runs": [{"ok": false, "nodes": {
      "n": {"kind": "k", "status": "failed", "error": "bad <value> & \"x\""}}}]})"),
                                      {});
  EXPECT_NE(html.find("<td class=\"num failed\" title=\"k: bad &lt;value&gt; &amp; &quot;x&quot;\">failed"),
            std::string::npos)
      << html;
  // Recorded without a graph: a note instead of a drawing; no metrics: a note instead of a table.
  EXPECT_NE(html.find("keeps no graph"), std::string::npos);
  EXPECT_NE(html.find("No evaluator metrics"), std::string::npos);
}

// Regression: NodeOrder iterated items() of the temporary returned by json::value(), freed
// before the loop body ran; a record without graphs made it crash.
TEST(HtmlReportTest, RecordWithoutGraphListsNodesInNameOrder) {
  std::string html = RenderHtmlReport(ParseRecord(R"({"pipeline": "p", "runs": [{"nodes": {
      "b": {"kind": "k", "status": "computed"}, "a": {"kind": "k", "status": "cached"}}},
      {"nodes": {"c": {"kind": "k", "status": "computed"}}}]})"),
                                      {});
  size_t a = html.find("<tr><td>a</td>"), b = html.find("<tr><td>b</td>"), c = html.find("<tr><td>c</td>");
  ASSERT_NE(c, std::string::npos) << html;
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
  EXPECT_NE(html.find("<tr><td>c</td><td class=\"skipped\">–</td><td class=\"num computed\""), std::string::npos);
}

}  // namespace html_report_test
}  // namespace seqflow

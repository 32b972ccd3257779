// The SVG line-plot writer: a well-formed document, one polyline per series with its points at
// the right pixels, axis and marker labels; and the plot of a path.csv.
#include "engine/record/svg_plot.h"

#include <gtest/gtest.h>

#include <cmath>
#include <regex>

#include "engine/record/report.h"
#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace svg_plot_test {

// Checks that every opening tag is closed in order (self-closing tags count as closed);
// returns the first problem, or "" if balanced.
std::string TagBalanceError(const std::string& xml) {
  std::vector<std::string> open;
  for (size_t pos = xml.find('<'); pos != std::string::npos; pos = xml.find('<', pos + 1)) {
    size_t end = xml.find('>', pos);
    if (end == std::string::npos) return "unterminated tag at " + std::to_string(pos);
    std::string tag = xml.substr(pos + 1, end - pos - 1);
    bool closing = !tag.empty() && tag[0] == '/';
    std::string name = tag.substr(closing, tag.find_first_of(" \n/", closing) - closing);
    if (closing) {
      if (open.empty() || open.back() != name) return "unexpected </" + name + ">";
      open.pop_back();
    } else if (tag.back() != '/') {
      open.push_back(name);
    }
  }
  return open.empty() ? "" : "unclosed <" + open.back() + ">";
}

std::vector<std::string> PolylinePoints(const std::string& svg) {
  std::vector<std::string> out;
  std::regex re("<polyline[^>]*points=\"([^\"]*)\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator(); ++it)
    out.push_back((*it)[1]);
  return out;
}

// A homotopy path table as nodes/homotopy declares it.
const AttachmentSpec kPathTable = AttachmentSpec::Table("path.csv", "lambda", {"*.f1", "*.accuracy"})
                                      .XLabel("λ")
                                      .Fallback({"entropy"})
                                      .MarkMax()
                                      .LambdaAxis();

LinePlot UnitPlot() {
  LinePlot plot;  // 640 x 400: plot area x in [70, 620], y in [40, 350]
  plot.title = "unit <square>";
  plot.x_label = "lambda";
  plot.y_label = "score";
  plot.series = {{"diagonal", {0, 0.5, 1}, {0, 0.5, 1}, {}}, {"with gap", {0, 0.5, 1}, {0.2, 0.4, std::nan("")}, {}}};
  plot.markers = {{0.5, "chosen"}};
  return plot;
}

TEST(SvgPlotTest, WellFormedWithAPolylinePerSeriesAndLabels) {
  std::string svg = RenderSvg(UnitPlot());
  EXPECT_EQ(TagBalanceError(svg), "") << svg;
  EXPECT_EQ(svg.rfind("<svg ", 0), 0u);
  std::vector<std::string> points = PolylinePoints(svg);
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(std::count(points[0].begin(), points[0].end(), ','), 3);
  EXPECT_EQ(std::count(points[1].begin(), points[1].end(), ','), 2) << "the NaN point is left out";
  for (const char* text : {">lambda</text>", ">score</text>", ">diagonal</text>", ">with gap</text>", ">chosen</text>",
                           ">0.0</text>", ">0.4</text>", ">1.0</text>", "unit &lt;square&gt;"})
    EXPECT_NE(svg.find(text), std::string::npos) << text << "\n" << svg;
}

TEST(SvgPlotTest, DataMapsToPixels) {
  LinePlot plot = UnitPlot();
  PlotFrame f = ComputeFrame(plot);
  EXPECT_EQ(f.x_min, 0);
  EXPECT_EQ(f.x_max, 1);
  EXPECT_DOUBLE_EQ(f.y_step, 0.2);
  EXPECT_EQ(f.left, 70);
  EXPECT_EQ(f.right, 620);
  EXPECT_EQ(f.top, 40);
  EXPECT_EQ(f.bottom, 350);
  std::string svg = RenderSvg(plot);
  std::vector<std::string> points = PolylinePoints(svg);
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0], "70.00,350.00 345.00,195.00 620.00,40.00");
  EXPECT_EQ(points[1], "70.00,288.00 345.00,226.00");
  EXPECT_NE(svg.find("<line x1=\"345.00\" y1=\"40.00\" x2=\"345.00\" y2=\"350.00\" class=\"marker\""),
            std::string::npos)
      << svg;
}

// Criteria that chose the same λ share a line and a label; a label in the right half ends at its
// line, below the legend, instead of running off the canvas.
TEST(SvgPlotTest, MarkersAtOneXShareALabelAndRightHalfLabelsEndAtTheirLine) {
  LinePlot plot;
  plot.series = {{"test.f1", {0, 1}, {0, 1}, {}}};
  plot.markers = {{0.25, "max_entropy"}, {1, "end"}, {0.25, "mle"}, {0.999, "min_eig"}};
  const std::string svg = RenderSvg(plot);
  size_t lines = 0;
  for (size_t at = svg.find("class=\"marker\""); at != std::string::npos; at = svg.find("class=\"marker\"", at + 1))
    ++lines;
  EXPECT_EQ(lines, 2u) << svg;
  EXPECT_NE(svg.find(">max_entropy, mle</text>"), std::string::npos) << svg;
  EXPECT_NE(svg.find("text-anchor=\"end\">end, min_eig</text>"), std::string::npos) << svg;
  EXPECT_NE(svg.find("<text x=\"617.00\" y=\"80.00\""), std::string::npos) << "below the one-series legend: " << svg;
}

TEST(SvgPlotTest, RangesWidenToWholeTicksAndFlatDataIsPadded) {
  LinePlot plot;
  plot.series = {{"flat", {0.03, 0.97}, {0.5, 0.5}, {}}};
  PlotFrame f = ComputeFrame(plot);
  EXPECT_DOUBLE_EQ(f.x_min, 0);
  EXPECT_DOUBLE_EQ(f.x_max, 1);
  EXPECT_LT(f.y_min, 0.5);
  EXPECT_GT(f.y_max, 0.5);
  EXPECT_NEAR(f.PixelY(0.5), (f.top + f.bottom) / 2, 1e-9);
  EXPECT_EQ(TagBalanceError(RenderSvg(LinePlot{})), "") << "an empty plot still renders";
}

TEST(SvgPlotTest, PathTablePlotsF1ThenAccuracyAgainstLambdaAndMarksTheBest) {
  std::string csv =
      "s,lambda,objective,test.accuracy,test.f1\n"
      "0,0,-3,0.8,0.5\n"
      "0.5,0.25,-2,0.9,0.75\n"
      "1,0.5,-1,0.85,nan\n";
  Result<LinePlot> plot = TablePlot(csv, "sweep", kPathTable);
  ASSERT_OK(plot);
  ASSERT_EQ(plot->series.size(), 2u);
  EXPECT_EQ(plot->series[0].name, "test.f1");
  EXPECT_EQ(plot->series[1].name, "test.accuracy");
  EXPECT_EQ(plot->series[1].x, (std::vector<double>{0, 0.25, 0.5}));
  EXPECT_EQ(plot->series[1].y, (std::vector<double>{0.8, 0.9, 0.85}));
  EXPECT_EQ(plot->x_label, "λ");
  EXPECT_EQ(plot->y_label, "metric");
  ASSERT_EQ(plot->markers.size(), 1u);
  EXPECT_EQ(plot->markers[0].x, 0.25);
  EXPECT_EQ(plot->markers[0].label, "max test.f1 at λ=0.250");
  EXPECT_EQ(PolylinePoints(RenderSvg(*plot)).size(), 2u);
  AttachmentSpec objective = kPathTable;
  objective.y = {"objective"};
  Result<LinePlot> chosen = TablePlot(csv, "sweep", objective);
  ASSERT_OK(chosen);
  EXPECT_EQ(chosen->y_label, "objective");
}

TEST(SvgPlotTest, TablePlotErrors) {
  EXPECT_EQ(TablePlot("s,test.f1\n0,1\n", "x", kPathTable).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(TablePlot("s,lambda,objective\n0,1,2\n", "x", kPathTable).status().code(), StatusCode::kNotFound);
  Result<LinePlot> entropy = TablePlot("s,lambda,entropy\n0,0,0.6\n1,0.5,0.4\n", "x", kPathTable);  // no test columns
  ASSERT_OK(entropy);
  EXPECT_EQ(entropy->series[0].name, "entropy");
  EXPECT_EQ(TablePlot("s,lambda,test.f1\n0,1\n", "x", kPathTable).status().code(), StatusCode::kInvalid);
  Result<LinePlot> bad = TablePlot("s,lambda,test.f1\n0,1,abc\n", "x", kPathTable);
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalid);
  EXPECT_NE(bad.status().message().find("path.csv: line 2: not a number: abc"), std::string::npos)
      << bad.status().ToString();
}

TEST(SvgPlotTest, ObjectiveTracePlotsObjectiveAgainstIteration) {
  // The trace crf.train writes: extra columns are ignored.
  const std::string csv =
      "iteration,objective,gradient_norm,step,evaluations,seconds\n"
      "1,453155.17,92873.4,1.9e-05,3,1.26\n"
      "2,341531.96,57720.5,1,4,1.73\n"
      "3,194390.16,27023.8,1,5,2.21\n";
  Result<LinePlot> plot = TablePlot(csv, "run-1/crf.objective.csv", ObjectiveTrace());
  ASSERT_OK(plot);
  ASSERT_EQ(plot->series.size(), 1u);
  EXPECT_EQ(plot->series[0].x, (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(plot->series[0].y, (std::vector<double>{453155.17, 341531.96, 194390.16}));
  EXPECT_EQ(plot->x_label, "iteration");
  EXPECT_EQ(plot->y_label, "objective");
  EXPECT_TRUE(plot->markers.empty());
  EXPECT_EQ(PolylinePoints(RenderSvg(*plot)).size(), 1u);
  EXPECT_EQ(TablePlot("iteration,loss\n1,2\n", "x", ObjectiveTrace()).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(TablePlot("iteration,objective\n1\n", "x", ObjectiveTrace()).status().code(), StatusCode::kInvalid);
}

// crf.hysol's trace: text in a column not drawn, and the drawn test_f1 only on the gamma rows.
TEST(SvgPlotTest, TextColumnsBesideTheDrawnOnesAndEmptyCellsAreSkipped) {
  const AttachmentSpec fig2 = AttachmentSpec::Table("objective.csv", "iteration", {"test_f1"}).MarkMax();
  const std::string csv =
      "iteration,step,generative_objective,test_f1\n"
      "0,gamma,0,0.9370\n"
      "1,em,-3.8e6,\n"
      "1,gamma,0,0.9351\n"
      "1,select,-3.7e6,\n";
  Result<LinePlot> plot = TablePlot(csv, "hysol.objective.csv", fig2);
  ASSERT_OK(plot);
  EXPECT_EQ(PolylinePoints(RenderSvg(*plot)).size(), 1u);
  ASSERT_EQ(plot->markers.size(), 1u);
  EXPECT_EQ(plot->markers[0].x, 0);
  Result<LinePlot> bad = TablePlot("iteration,step,test_f1\n0,gamma,high\n", "x", fig2);
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalid) << "a drawn column must hold numbers";
}

TEST(SvgPlotTest, LearningCurvesFromANumericAxisWithErrorBars) {
  ReportTable table;
  table.columns = {"em.f1", "em.accuracy", "supervised.f1"};
  auto cell = [](double mean, double sd) {
    ReportCell c;
    c.mean = mean, c.stddev = sd, c.n = 4;
    return std::optional<ReportCell>(c);
  };
  table.rows.resize(2);
  table.rows[0].label = "unlabeled=100", table.rows[1].label = "unlabeled=500";
  table.rows[0].runs = table.rows[1].runs = 4;
  table.rows[0].cells = {cell(0.61, 0.01), cell(0.83, 0.02), cell(0.64, 0.0)};
  table.rows[1].cells = {cell(0.48, 0.05), cell(0.75, 0.01), std::nullopt};
  const std::vector<LinePlot> plots = LearningCurvePlots(table);
  ASSERT_EQ(plots.size(), 2u);  // f1 and accuracy
  EXPECT_EQ(plots[0].y_label, "f1");
  EXPECT_EQ(plots[0].x_label, "unlabeled");
  ASSERT_EQ(plots[0].series.size(), 2u);
  EXPECT_EQ(plots[0].series[0].name, "em");
  EXPECT_EQ(plots[0].series[0].x, (std::vector<double>{100, 500}));
  EXPECT_EQ(plots[0].series[0].y, (std::vector<double>{0.61, 0.48}));
  EXPECT_EQ(plots[0].series[0].y_error, (std::vector<double>{0.01, 0.05}));
  EXPECT_EQ(plots[0].series[1].x, (std::vector<double>{100}));  // a missing cell is left out
  const std::string svg = RenderSvg(plots[0]);
  size_t bars = 0;
  for (size_t at = svg.find("class=\"error-bar\""); at != std::string::npos;
       at = svg.find("class=\"error-bar\"", at + 1))
    ++bars;
  EXPECT_EQ(bars, 3u * 2u);  // two non-zero errors of em, three lines each (the zero sd draws none)
  // The frame covers the error bars.
  const PlotFrame f = ComputeFrame(plots[0]);
  EXPECT_LE(f.y_min, 0.43);
  // One axis whose keys move together: the first key is x.
  table.rows[0].label = "labeled.labeled=5, holdout.labeled=5";
  table.rows[1].label = "labeled.labeled=10, holdout.labeled=10";
  ASSERT_EQ(LearningCurvePlots(table).size(), 2u);
  EXPECT_EQ(LearningCurvePlots(table)[0].x_label, "labeled.labeled");
  EXPECT_EQ(LearningCurvePlots(table)[0].series[0].x, (std::vector<double>{5, 10}));
  table.rows[1].label = "labeled.labeled=5, holdout.labeled=10";  // a grid: x repeats
  EXPECT_TRUE(LearningCurvePlots(table).empty());
  table.rows[1].label = "labeled.labeled=10, pool=10";  // other keys
  EXPECT_TRUE(LearningCurvePlots(table).empty());
  table.rows[1].label = "decoder=decode.sms";  // not numeric: no curves
  EXPECT_TRUE(LearningCurvePlots(table).empty());
}

// Text sizes a decade apart: a log axis, so the four points sit at equal gaps, with a tick at
// every decade; an axis within two decades stays linear.
TEST(SvgPlotTest, LearningCurvesOverDecadesAreOnALogAxis) {
  ReportTable table;
  table.columns = {"anchor_hmm0_score.accuracy"};
  const std::vector<double> sizes = {700, 7000, 70000, 700000};
  for (double size : sizes) {
    ReportRow row;
    row.label = "raw.max_sentences=" + std::to_string(static_cast<int>(size));
    row.runs = 1;
    ReportCell cell;
    cell.mean = 0.5 + size / 2e6, cell.n = 1;
    row.cells = {cell};
    table.rows.push_back(row);
  }
  const std::vector<LinePlot> plots = LearningCurvePlots(table);
  ASSERT_EQ(plots.size(), 1u);
  ASSERT_TRUE(plots[0].log_x);
  const PlotFrame f = ComputeFrame(plots[0]);
  EXPECT_EQ(f.x_min, 2);  // 100 .. 1e+06
  EXPECT_EQ(f.x_max, 6);
  for (size_t i = 1; i + 1 < sizes.size(); ++i)
    EXPECT_NEAR(f.PixelX(sizes[i + 1]) - f.PixelX(sizes[i]), f.PixelX(sizes[i]) - f.PixelX(sizes[i - 1]), 1e-9);
  EXPECT_NEAR(f.PixelX(1000), f.left + (f.right - f.left) / 4, 1e-9);
  const std::string svg = RenderSvg(plots[0]);
  EXPECT_EQ(TagBalanceError(svg), "");
  for (const char* tick : {">100<", ">1000<", ">10000<", ">100000<", ">1e+06<"})
    EXPECT_NE(svg.find(tick), std::string::npos) << tick;
  // The legend keeps a long evaluator name on the canvas: its text starts far enough left.
  std::smatch legend;
  ASSERT_TRUE(std::regex_search(svg, legend, std::regex("<text x=\"([0-9.]+)\"[^>]*>anchor_hmm0_score<")));
  EXPECT_LE(std::stod(legend[1]) + 6.0 * 17, 640);

  // Five evaluators or more: the legend right of the plot area, on a canvas widened for it.
  table.columns.assign(5, "anchor_hmm0_score.accuracy");
  for (ReportRow& row : table.rows) row.cells.assign(5, row.cells[0]);
  const LinePlot five = LearningCurvePlots(table).at(0);
  const PlotFrame five_frame = ComputeFrame(five);
  EXPECT_EQ(five_frame.right - five_frame.left, f.right - f.left);
  const std::string wide = RenderSvg(five);
  ASSERT_TRUE(std::regex_search(wide, legend, std::regex("<text x=\"([0-9.]+)\"[^>]*>anchor_hmm0_score<")));
  EXPECT_GT(std::stod(legend[1]), five_frame.right);
  EXPECT_LE(std::stod(legend[1]) + 6.0 * 17, five.width);

  table.rows.resize(2);  // 700 and 7,000: one decade, linear
  EXPECT_FALSE(LearningCurvePlots(table)[0].log_x);
}

}  // namespace svg_plot_test
}  // namespace seqflow

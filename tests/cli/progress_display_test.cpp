// The text of `seqflow run`'s progress: ETA arithmetic, durations, the live lines within the
// terminal width, and the plain finish lines of non-terminal output.
#include "cli/progress_display.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

namespace seqflow::cli {
namespace progress_display_test {

using std::chrono::milliseconds;
using std::chrono::seconds;

const ProgressClock::time_point kT0 = ProgressClock::time_point() + std::chrono::hours(1);

NodeProgress At(std::string label, seconds started_ago, seconds updated_ago, int64_t done, int64_t total,
                ProgressClock::time_point now) {
  return NodeProgress{std::move(label), now - started_ago, now - updated_ago, done, total};
}

size_t Columns(const std::string& s) {
  return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

TEST(ProgressDisplayTest, EtaFromTheRateSoFar) {
  // 25 of 100 after 10 s: 0.4 s an item, 75 left.
  NodeProgress p = At("em", seconds(10), seconds(0), 25, 100, kT0);
  ASSERT_TRUE(EtaSeconds(p, kT0).has_value());
  EXPECT_DOUBLE_EQ(*EtaSeconds(p, kT0), 30.0);
  // 4 s after that report, without a new one: 26 s left.
  EXPECT_DOUBLE_EQ(*EtaSeconds(p, kT0 + seconds(4)), 26.0);
  // Long overdue: never negative.
  EXPECT_DOUBLE_EQ(*EtaSeconds(p, kT0 + seconds(100)), 0.0);
  // Done: nothing left.
  EXPECT_DOUBLE_EQ(*EtaSeconds(At("em", seconds(8), seconds(0), 100, 100, kT0), kT0), 0.0);
  // 1 of 3 after 1.5 s.
  NodeProgress q{"x", kT0 - milliseconds(1500), kT0, 1, 3};
  EXPECT_DOUBLE_EQ(*EtaSeconds(q, kT0), 3.0);
}

TEST(ProgressDisplayTest, NoEtaWithoutTotalOrProgress) {
  EXPECT_FALSE(EtaSeconds(At("a", seconds(5), seconds(0), 0, 100, kT0), kT0).has_value());
  EXPECT_FALSE(EtaSeconds(At("a", seconds(5), seconds(0), 7, 0, kT0), kT0).has_value());
  EXPECT_FALSE(EtaSeconds(At("a", seconds(5), seconds(0), 7, -1, kT0), kT0).has_value());
}

TEST(ProgressDisplayTest, FormatDuration) {
  EXPECT_EQ(FormatDuration(0), "0:00");
  EXPECT_EQ(FormatDuration(7.9), "0:07");
  EXPECT_EQ(FormatDuration(754), "12:34");
  EXPECT_EQ(FormatDuration(3599.99), "59:59");
  EXPECT_EQ(FormatDuration(3600), "1:00:00");
  EXPECT_EQ(FormatDuration(3723), "1:02:03");
  EXPECT_EQ(FormatDuration(-5), "0:00");
  EXPECT_EQ(FormatDuration(std::numeric_limits<double>::quiet_NaN()), "0:00");
}

TEST(ProgressDisplayTest, BarLineWithCountElapsedAndEta) {
  std::vector<std::string> lines = ProgressLines({At("[run 1/2] em", seconds(10), seconds(0), 25, 100, kT0)}, kT0, 200);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "[run 1/2] em  [#####---------------]        25/100  0:10  ETA 0:30");
}

TEST(ProgressDisplayTest, WhatTheLoopIsAtFollowsTheCount) {
  NodeProgress em = At("em", seconds(10), seconds(0), 25, 100, kT0);
  em.note = "L_λ -154.68112";
  NodeProgress path = At("path", seconds(3), seconds(0), 7, 0, kT0);
  path.note = "λ 0.25";
  std::vector<std::string> lines = ProgressLines({em, path}, kT0, 200);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_TRUE(lines[0].ends_with("25/100  0:10  ETA 0:30  L_λ -154.68112")) << lines[0];
  EXPECT_TRUE(lines[1].ends_with("step 7  0:03  λ 0.25")) << lines[1];
}

TEST(ProgressDisplayTest, LabelsAlignedAndSpinnerWithoutTotal) {
  std::vector<std::string> lines = ProgressLines(
      {At("em", seconds(12), seconds(0), 37, 100, kT0), At("vocab", seconds(1), seconds(0), 0, 0, kT0)}, kT0, 200);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].rfind("em     [#######-------------]", 0), 0u) << lines[0];
  EXPECT_NE(lines[0].find("37/100  0:12  ETA 0:20"), std::string::npos) << lines[0];
  EXPECT_EQ(lines[1].rfind("vocab  ", 0), 0u) << lines[1];
  EXPECT_NE(std::string("|/-\\").find(lines[1][7]), std::string::npos) << lines[1];
  EXPECT_EQ(lines[1].find('['), std::string::npos);
  EXPECT_NE(lines[1].find("0:01"), std::string::npos);
  // The spinner turns every 100 ms.
  std::vector<std::string> later =
      ProgressLines({At("vocab", seconds(1), seconds(0), 0, 0, kT0)}, kT0 + milliseconds(100), 200);
  EXPECT_NE(later[0][7], lines[1][7]);
}

TEST(ProgressDisplayTest, BarClampedToFullAndEmpty) {
  auto bar = [](int64_t done, int64_t total) {
    std::string line = ProgressLines({At("n", seconds(1), seconds(0), done, total, kT0)}, kT0, 200)[0];
    return line.substr(line.find('['), 22);
  };
  EXPECT_EQ(bar(0, 10), "[--------------------]");
  EXPECT_EQ(bar(10, 10), "[####################]");
  EXPECT_EQ(bar(15, 10), "[####################]");
  EXPECT_EQ(bar(1, 2), "[##########----------]");
}

TEST(ProgressDisplayTest, LinesFitTheTerminalWidth) {
  std::vector<NodeProgress> running = {
      At("[run 12/40] a_very_long_node_name_that_goes_on_and_on", seconds(3725), seconds(1), 123456, 999999, kT0),
      At("[run 12/40] ünïcödé_nämé", seconds(2), seconds(0), 3, 0, kT0), At("x", seconds(2), seconds(0), 1, 2, kT0)};
  for (size_t width : {1u, 10u, 39u, 40u, 79u, 120u}) {
    std::vector<std::string> lines = ProgressLines(running, kT0, width);
    ASSERT_EQ(lines.size(), running.size());
    for (const std::string& line : lines) EXPECT_LE(Columns(line), width) << width << ": " << line;
  }
  // Wide enough: nothing cut but the label, which stops at 32 columns.
  std::vector<std::string> wide = ProgressLines(running, kT0, 500);
  EXPECT_NE(wide[0].find("ETA "), std::string::npos);
  EXPECT_EQ(wide[0].rfind("[run 12/40] a_very_long_node_nam  [", 0), 0u) << wide[0];
  EXPECT_EQ(wide[1].rfind("[run 12/40] ünïcödé_nämé         ", 0), 0u) << wide[1];
  EXPECT_NE(wide[1].find("step 3"), std::string::npos);
  // Cut at a code point boundary: valid UTF-8 prefix.
  std::vector<std::string> cut = ProgressLines({running[1]}, kT0, 14);
  EXPECT_EQ(cut[0], "[run 12/40] ün");
}

TEST(ProgressDisplayTest, NoLinesForNoRunningNodes) { EXPECT_TRUE(ProgressLines({}, kT0, 80).empty()); }

TEST(ProgressDisplayTest, PlainFinishLines) {
  NodeOutcome o;
  o.name = "score";
  o.kind = "eval.segments";
  o.status = NodeStatus::kComputed;
  o.seconds = 0.0214;
  EXPECT_EQ(FinishLine("", o), "computed score (eval.segments) 0.021s");
  o.status = NodeStatus::kCached;
  EXPECT_EQ(FinishLine("[run 1/2] ", o), "[run 1/2] cached   score (eval.segments) 0.021s");
  o.status = NodeStatus::kFailed;
  o.error = Status::Invalid("bad input");
  std::string failed = FinishLine("", o);
  EXPECT_EQ(failed.rfind("failed   score (eval.segments) 0.021s\n    ", 0), 0u) << failed;
  EXPECT_NE(failed.find("bad input"), std::string::npos);
  EXPECT_EQ(std::count(failed.begin(), failed.end(), '\n'), 1);
}

TEST(ProgressDisplayTest, TallyCountsEachEndAndNamesFailuresOnlyWhenThereAreSome) {
  NodeTally tally{.total = 40};
  for (int i = 0; i < 9; ++i) tally.Count(NodeStatus::kCached);
  for (int i = 0; i < 3; ++i) tally.Count(NodeStatus::kComputed);
  EXPECT_EQ(tally.finished(), 12);
  EXPECT_EQ(TallyLine(tally, 2, 83), "12/40 nodes  3 computed  9 cached  2 running  1:23");
  tally.Count(NodeStatus::kFailed);
  tally.Count(NodeStatus::kSkipped);
  tally.Count(NodeStatus::kSkipped);
  EXPECT_EQ(TallyLine(tally, 0, 3725), "15/40 nodes  3 computed  9 cached  1 failed  2 skipped  0 running  1:02:05");
}

TEST(ProgressDisplayTest, PlainFinishLineEndsWithTheTallyBeforeAnError) {
  NodeOutcome o;
  o.name = "score";
  o.kind = "eval.segments";
  o.status = NodeStatus::kFailed;
  o.seconds = 0.5;
  o.error = Status::Invalid("bad input");
  NodeTally tally{.total = 7, .computed = 4, .failed = 1};
  std::string line = FinishLine("[run 2/2] ", o, &tally);
  EXPECT_EQ(line.substr(0, line.find('\n')), "[run 2/2] failed   score (eval.segments) 0.500s  (5/7 nodes)");
  EXPECT_NE(line.find("\n    "), std::string::npos);
}

}  // namespace progress_display_test
}  // namespace seqflow::cli

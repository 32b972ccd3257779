#include "engine/record/overlay_plots.h"

#include <gtest/gtest.h>

namespace seqflow {
namespace {

// Three decoder runs of one trainer: runs 1 and 3 attached the same trace, run 2 another.
PipelineRecord ThreeRuns() {
  PipelineRecord record;
  record.kinds["hmm.em"].attachments = {ObjectiveTrace()};
  for (const char* decoder : {"viterbi", "sms", "posterior"}) {
    RunRecord run;
    run.axes["decoder"] = decoder;
    run.nodes["em"].kind = "hmm.em";
    run.nodes["em"].attachments = {"objective.csv"};
    record.runs.push_back(run);
  }
  return record;
}

TEST(OverlayPlotsTest, EveryRunsLineOnOnePlotAndIdenticalLinesOnce) {
  const PipelineRecord record = ThreeRuns();
  const std::map<std::string, std::string> tables = {{"run-1/em.objective.csv", "iteration,objective\n1,-5\n2,-4\n"},
                                                     {"run-2/em.objective.csv", "iteration,objective\n1,-6\n2,-3\n"},
                                                     {"run-3/em.objective.csv", "iteration,objective\n1,-5\n2,-4\n"}};
  const std::vector<OverlaidPlot> plots = OverlaidTablePlots(record, tables);
  ASSERT_EQ(plots.size(), 1u);
  EXPECT_EQ(plots[0].file, "em.objective.svg");
  EXPECT_EQ(plots[0].plot.title, "em: objective against iteration, every run");
  ASSERT_EQ(plots[0].plot.series.size(), 2u);
  EXPECT_EQ(plots[0].plot.series[0].name, "decoder=viterbi | decoder=posterior");
  EXPECT_EQ(plots[0].plot.series[1].name, "decoder=sms");
  EXPECT_EQ(plots[0].plot.series[1].y, (std::vector<double>{-6, -3}));
}

TEST(OverlayPlotsTest, ATableOfOneRunIsNotOverlaid) {
  PipelineRecord record = ThreeRuns();
  record.runs.resize(1);
  EXPECT_TRUE(OverlaidTablePlots(record, {{"em.objective.csv", "iteration,objective\n1,-5\n"}}).empty());
}

}  // namespace
}  // namespace seqflow

// The repeat: / repeats: section: seeds, the grid with ablation axes, which nodes get the seed,
// and the located errors.
#include "tests/engine/dsl/pipeline_fixture.h"

namespace seqflow::testutil {
namespace repeats_test {

// Kinds that declare a seed, as the registry would say.
bool TakesSeed(const std::string& kind) { return kind == "split" || kind == "t.seeded"; }

class RepeatTest : public PipelineTest {
 protected:
  // Two split nodes (seeded), a model and a decoder (not), then `tail`.
  Result<PipelineSpec> ParseWith(const std::string& tail) {
    return Parse(
        "nodes:\n"
        "  labeled: {kind: split, count: 10, seed: 7}\n"
        "  unlabeled: {kind: split, count: 20}\n"
        "  model: {kind: t.double, in: [labeled, unlabeled]}\n"
        "  predicted: {kind: decode.viterbi, in: [model]}\n" +
        tail);
  }
  std::vector<RunVariant> Expand(const std::string& tail, const std::string& axis = "") {
    Result<PipelineSpec> spec = ParseWith(tail);
    EXPECT_OK(spec);
    if (!spec.ok()) return {};
    Result<std::vector<RunVariant>> runs = ExpandAblations(*spec, axis, TakesSeed);
    EXPECT_OK(runs);
    return runs.ok() ? *runs : std::vector<RunVariant>{};
  }
};

std::string SeedOf(const RunVariant& run, const std::string& node) {
  auto it = run.spec.FindNode(node)->params.find("seed");
  return it == run.spec.FindNode(node)->params.end() ? "-" : it->second.scalar;
}

TEST_F(RepeatTest, RepeatNIsSeedsOneToNOnEverySeededNode) {
  std::vector<RunVariant> runs = Expand("repeat: 3\n");
  ASSERT_EQ(runs.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    std::string seed = std::to_string(i + 1);
    EXPECT_EQ(SeedOf(runs[i], "labeled"), seed);
    EXPECT_EQ(SeedOf(runs[i], "unlabeled"), seed);
    EXPECT_EQ(SeedOf(runs[i], "model"), "-") << "t.double takes no seed";
    EXPECT_EQ(runs[i].axes, (std::map<std::string, std::string>{{"repeat", seed}}));
    EXPECT_EQ(runs[i].assignment,
              (std::map<std::string, std::string>{{"labeled.seed", seed}, {"unlabeled.seed", seed}}));
  }
  // The seed's place is the repeat key, so a bad seed value is reported there.
  EXPECT_EQ(runs[1].spec.FindNode("labeled")->params.at("seed").loc.ToString(), dir_ + "/p.yaml:6:1");
}

// Each run is its seed applied: a run holding the whole seed list as well made repeat: N take
// N^2 seeds of memory (12 GB for N = 20000).
TEST_F(RepeatTest, RunsKeepNoSeedListOrAxes) {
  std::vector<RunVariant> runs = Expand("ablations:\n  size: {labeled.count: [10, 30]}\nrepeat: 3\n");
  ASSERT_EQ(runs.size(), 6u);
  for (const RunVariant& run : runs) {
    EXPECT_FALSE(run.spec.repeat.has_value());
    EXPECT_TRUE(run.spec.ablations.empty());
  }
}

TEST_F(RepeatTest, RepeatsListsTheSeedsAndVarsExpand) {
  std::vector<RunVariant> runs = Expand("vars: {s: 42}\nrepeats: {seed: [\"${s}\", 5]}\n");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(SeedOf(runs[0], "labeled"), "42");
  EXPECT_EQ(SeedOf(runs[1], "unlabeled"), "5");
  EXPECT_EQ(runs[1].axes.at("repeat"), "5");
}

TEST_F(RepeatTest, FormsAGridWithTheAxesSeedsFastest) {
  const std::string tail =
      "ablations:\n"
      "  decoder: {predicted.kind: [decode.viterbi, decode.sms]}\n"
      "  size: {labeled.count: [10, 30]}\n"
      "repeat: 2\n";
  std::vector<RunVariant> runs = Expand(tail);
  ASSERT_EQ(runs.size(), 8u);
  EXPECT_EQ(runs[0].axes,
            (std::map<std::string, std::string>{{"decoder", "decode.viterbi"}, {"repeat", "1"}, {"size", "10"}}));
  EXPECT_EQ(runs[1].axes.at("repeat"), "2");
  EXPECT_EQ(runs[1].axes.at("size"), "10");
  EXPECT_EQ(runs[7].axes,
            (std::map<std::string, std::string>{{"decoder", "decode.sms"}, {"repeat", "2"}, {"size", "30"}}));
  // One named axis keeps its repetitions; the axis "repeat" is the repetitions alone.
  EXPECT_EQ(Expand(tail, "decoder").size(), 4u);
  std::vector<RunVariant> only = Expand(tail, "repeat");
  ASSERT_EQ(only.size(), 2u);
  EXPECT_EQ(only[1].axes, (std::map<std::string, std::string>{{"repeat", "2"}}));
}

TEST_F(RepeatTest, TheSeedFollowsKindAblations) {
  std::vector<RunVariant> runs = Expand(
      "ablations:\n"
      "  model: {model.kind: [t.double, t.seeded]}\n"
      "repeat: 1\n");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(SeedOf(runs[0], "model"), "-");
  EXPECT_EQ(SeedOf(runs[1], "model"), "1");
}

TEST_F(RepeatTest, IncludedRepeatIsReplacedByTheIncludingFile) {
  Write("base.yaml", "repeat: 5\n");
  std::vector<RunVariant> runs = Expand("include: base.yaml\nrepeats: {seed: [9]}\n");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(SeedOf(runs[0], "labeled"), "9");
}

TEST_F(RepeatTest, RepeatMustBeAPositiveInteger) {
  for (const char* bad : {"0", "-2", "two", "1.5"})
    EXPECT_TRUE(FailsAt(ParseWith(std::string("repeat: ") + bad + "\n"), "p.yaml", 6, 9,
                        std::string("'repeat' must be a positive integer N (runs with seeds 1..N), got '") + bad + "'"))
        << bad;
  EXPECT_TRUE(FailsAt(ParseWith("repeat: [1, 2]\n"), "p.yaml", 6, 9,
                      "'repeat' must be a positive integer N (runs with seeds 1..N), got a list"));
}

TEST_F(RepeatTest, RepeatAndRepeatsTogether) {
  EXPECT_TRUE(FailsAt(ParseWith("repeat: 2\nrepeats: {seed: [1]}\n"), "p.yaml", 7, 1,
                      "give either 'repeat: N' or 'repeats: {seed: [...]}', not both ('repeat' at line 6)"));
}

TEST_F(RepeatTest, RepeatsTakesOnlySeed) {
  EXPECT_TRUE(FailsAt(ParseWith("repeats: {seed: [1], count: [2]}\n"), "p.yaml", 6, 22,
                      "'repeats' takes only 'seed' (the seeds to repeat with), got 'count'; e.g. repeats: {seed: "
                      "[1, 2, 3]}"));
  EXPECT_TRUE(FailsAt(ParseWith("repeats: {seed: []}\n"), "p.yaml", 6, 17,
                      "'repeats.seed' must be a non-empty list of seeds, e.g. repeats: {seed: [1, 2, 3]}; got an "
                      "empty list"));
  EXPECT_TRUE(FailsAt(ParseWith("repeats: 3\n"), "p.yaml", 6, 10,
                      "'repeats' must be a map {seed: [s1, s2, ...]}, e.g. repeats: {seed: [1, 2, 3]}; got a scalar"));
  EXPECT_TRUE(FailsAt(ParseWith("repeats: {seed: [1, 1]}\n"), "p.yaml", 6, 17,
                      "seed 1 is listed twice in 'repeats'; each seed gives one run"));
}

TEST_F(RepeatTest, NoSeededNodeIsAnErrorAtTheRepeatKey) {
  Result<PipelineSpec> spec = Parse(
      "nodes:\n"
      "  model: {kind: t.double}\n"
      "repeat: 4\n");
  ASSERT_OK(spec);
  EXPECT_TRUE(FailsAt(ExpandAblations(*spec, "", TakesSeed), "p.yaml", 3, 1,
                      "repeat: 4 but no node takes a seed; add a node whose kind has a seed parameter, e.g. a split "
                      "node"));
}

TEST_F(RepeatTest, AnAblationAxisNamedRepeatClashes) {
  EXPECT_TRUE(FailsAt(ParseWith("ablations:\n  repeat: {labeled.seed: [1, 2]}\nrepeat: 2\n"), "p.yaml", 7, 3,
                      "ablation axis 'repeat' clashes with 'repeat: 2'; rename the axis, or drop it and let repeat: "
                      "set the seeds"));
}

// The expansion is bounded before any run is built: 4 nodes x 2 x 3 settings x 5 seeds is 120
// instances, refused under a limit of 100 at the repeat key, taken at 120; an axis that passes
// the limit alone is named at its own key.
TEST_F(RepeatTest, RunsPastTheInstanceLimitAreAnErrorAtTheRepeatKey) {
  Result<PipelineSpec> spec = ParseWith(
      "ablations:\n"
      "  size: {labeled.count: [1, 2]}\n"
      "  decoder: {predicted.kind: [decode.viterbi, decode.sms, decode.tag]}\n"
      "repeat: 5\n");
  ASSERT_OK(spec);
  EXPECT_TRUE(FailsAt(ExpandAblations(*spec, "", TakesSeed, 100), "p.yaml", 9, 1,
                      "repeat: 5 over 6 runs of 4 nodes takes the pipeline past 100 node instances (5 x 6 x 4); run "
                      "one axis at a time (--ablation AXIS), use fewer values or seeds, or split the pipeline into "
                      "files that include a shared part"));
  Result<std::vector<RunVariant>> runs = ExpandAblations(*spec, "", TakesSeed, 120);
  ASSERT_OK(runs);
  EXPECT_EQ(runs->size(), 30u);
  EXPECT_TRUE(FailsAt(ExpandAblations(*spec, "", TakesSeed, 20), "p.yaml", 8, 3,
                      "ablation axis 'decoder' (3 values) takes the grid past 20 node instances (2 runs of 4 nodes "
                      "before it); run one axis at a time (--ablation AXIS), use fewer values or seeds, or split the "
                      "pipeline into files that include a shared part"));
  ASSERT_OK(ExpandAblations(*spec, "size", TakesSeed, 40));  // one axis: 2 x 5 x 4
}

// repeat: N is refused past the limit before its seeds are listed (10^12 of them would not fit).
TEST_F(RepeatTest, ARepeatPastTheLimitIsRefusedBeforeItsSeedsAreListed) {
  EXPECT_TRUE(FailsAt(ParseWith("repeat: 1000000000000\n"), "p.yaml", 6, 9,
                      "'repeat: 1000000000000' asks for more runs than the 1000000 node instances a pipeline may "
                      "expand to; use fewer seeds, or split the seeds over pipelines with repeats: {seed: [...]}"));
  ASSERT_OK(ParseWith("repeat: 1000000\n"));
}

}  // namespace repeats_test
}  // namespace seqflow::testutil

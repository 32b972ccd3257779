// eval.compare: F1 (segments, when the gold corpus has a tag encoding) and accuracy of every
// system, and the p-value of each system against the first, as Metrics and a Markdown table.
#include "nodes/eval/compare_node.h"

#include <fmt/format.h>

#include <cstdio>
#include <set>

#include "engine/api/node.h"
#include "nodes/eval/sentence_stats.h"

namespace seqflow {
namespace {

struct System {
  std::string name;
  std::vector<SentenceStats> sentences;
  double f1 = 0, accuracy = 0;
};

// What eval.compare reads: the systems' names and the paired test.
struct CompareOptions {
  std::vector<std::string> names;
  SignificanceOptions test;
};

std::vector<std::string> SystemNames(std::vector<std::string> names, size_t count) {
  if (names.empty())
    for (size_t i = 0; i < count; ++i) names.push_back("system" + std::to_string(i + 1));
  if (names.size() != count)
    throw StatusError(Status::Invalid("'names' lists " + std::to_string(names.size()) + " names for " +
                                      std::to_string(count) + " systems; give one per system, in order"));
  if (std::set<std::string>(names.begin(), names.end()).size() != names.size())
    throw StatusError(Status::Invalid("'names' must be distinct"));
  return names;
}

System Score(const Corpus& gold, const Predictions& predicted, std::string name) {
  AlignedLabels labels = ValueOrThrow(AlignLabels(gold, predicted));
  System system{std::move(name), {}, 0, 0};
  if (gold.encoding == TagEncoding::kNone) {
    system.sentences = TokenSentenceStats(labels);
  } else {
    system.sentences = SegmentSentenceStats(ValueOrThrow(ScoreSegments(labels, gold.encoding)), labels);
  }
  SentenceStats total;
  for (const SentenceStats& s : system.sentences) total += s;
  system.f1 = Evaluate(total, Statistic::kF1);
  system.accuracy = Evaluate(total, Statistic::kAccuracy);
  return system;
}

std::string Number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", v);
  return buf;
}

std::string PCell(double p) { return (p < 0.001 ? "<0.001" : Number(p)) + (p < 0.05 ? " †" : ""); }

// The compare.md attachment: one row per system, p-values against the first.
std::string Markdown(const std::vector<System>& systems, const std::vector<SignificanceResult>& tests, bool segments) {
  std::string out = segments
                        ? "| system | f1 | p (f1) | accuracy | p (accuracy) |\n| --- | ---: | ---: | ---: | ---: |\n"
                        : "| system | accuracy | p (accuracy) |\n| --- | ---: | ---: |\n";
  for (size_t i = 0; i < systems.size(); ++i) {
    auto p = [&](Statistic s) { return i == 0 ? std::string("ref") : PCell(tests[i - 1].p[static_cast<size_t>(s)]); };
    // fmt rather than chained operator+: GCC 12 sees a false out-of-bounds copy in the chain.
    out += fmt::format("| {} |", systems[i].name);
    if (segments) out += fmt::format(" {} | {} |", Number(systems[i].f1), p(Statistic::kF1));
    out += fmt::format(" {} | {} |\n", Number(systems[i].accuracy), p(Statistic::kAccuracy));
  }
  return out + "\np: paired test against the first system over sentences; † p < 0.05\n";
}

ArtifactPtr RunCompare(NodeContext& ctx, const CompareOptions& options) {
  auto gold = ctx.In<Corpus>("gold");
  auto predictions = ctx.InList<Predictions>("systems");
  std::vector<std::string> names = SystemNames(options.names, predictions.size());
  const bool segments = gold->encoding != TagEncoding::kNone;
  std::vector<System> systems;
  for (size_t i = 0; i < predictions.size(); ++i) systems.push_back(Score(*gold, *predictions[i], names[i]));
  auto metrics = std::make_shared<Metrics>();
  std::vector<SignificanceResult> tests;
  for (size_t i = 0; i < systems.size(); ++i) {
    if (segments) metrics->values["f1." + systems[i].name] = systems[i].f1;
    metrics->values["accuracy." + systems[i].name] = systems[i].accuracy;
    if (i == 0) continue;
    tests.push_back(ValueOrThrow(PairedSignificance({{systems[i].sentences, systems[0].sentences}}, options.test)));
    if (segments) metrics->values["p_f1." + systems[i].name] = tests.back().p[static_cast<size_t>(Statistic::kF1)];
    metrics->values["p_accuracy." + systems[i].name] = tests.back().p[static_cast<size_t>(Statistic::kAccuracy)];
  }
  for (const auto& [name, value] : metrics->values) ctx.Metric(name, value);
  ctx.Attach("compare.md", Markdown(systems, tests, segments));
  return metrics;
}

ParamTable<CompareOptions> CompareParams() {
  using O = CompareOptions;
  auto test = [](auto member) { return At(&O::test, member); };
  ParamTable<O> table;
  table.StringList("names", &O::names, "a name per system, in order (default system1, system2, ...)")
      .Enum("test", test(&SignificanceOptions::test),
            {{"randomization", PairedTest::kRandomization}, {"bootstrap", PairedTest::kBootstrap}},
            "approximate randomization (Noreen 1989) or paired bootstrap")
      .Int("samples", test(&SignificanceOptions::samples), "shuffles or resamples of the test")
      .Min(1)
      // Not `seed`: repeat: sets every `seed`, and the test's draws are no experiment seed.
      .Int("shuffle_seed", test(&SignificanceOptions::shuffle_seed), "seed of the test's random draws");
  return table;
}

}  // namespace

void RegisterCompareNode(Registry& registry) {
  registry.AddKind(KindSpec{
      "eval.compare",
      "1",
      "Several systems' predictions of one gold corpus side by side: segment F1 (when the gold corpus has a tag "
      "encoding) and token accuracy of each, and the p-value of each system against the first by a paired test "
      "over sentences. Metrics f1.NAME, accuracy.NAME, p_f1.NAME, p_accuracy.NAME; attaches compare.md.",
      std::string(Metrics::kType),
      {PortSpec{"systems", std::string(Predictions::kType), true, false, "decoded labels, the reference first"},
       PortSpec{"gold", std::string(Corpus::kType), false, false, "the labeled corpus that was decoded"}},
      CompareParams(),
      RunCompare}
                       .As(NodeRole::kEvaluator, {"f1", "accuracy"})
                       .PerSystem("p_"));
}

}  // namespace seqflow

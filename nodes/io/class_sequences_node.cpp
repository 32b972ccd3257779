#include "nodes/io/class_sequences_node.h"

#include <memory>
#include <string>
#include <vector>

#include "engine/api/node.h"
#include "nodes/io/class_sequences.h"

namespace seqflow {
namespace {

const std::string kSequences(ClassSequences::kType);

struct ReadOptions {
  std::string path;
};

ArtifactPtr RunRead(NodeContext& ctx, const ReadOptions& options) {
  const std::string text = ValueOrThrow(ctx.ReadFile(options.path));
  auto data = ValueOrThrow(ParseClassSequences(text, options.path));
  ctx.Metric("sequences", static_cast<double>(data->sequences.size()));
  ctx.Metric("classes", data->num_classes);
  ctx.Metric("symbols", data->num_symbols);
  return data;
}

ParamTable<ReadOptions> ReadParams() {
  ParamTable<ReadOptions> table;
  table.Path("path", &ReadOptions::path, "the file: one sequence a line, class<TAB>symbol ids");
  return table;
}

// --- split.classes --------------------------------------------------------------------------

enum class SplitPart { kLabeled, kRest };
const char* SplitPartName(SplitPart p) { return p == SplitPart::kLabeled ? "labeled" : "rest"; }

struct SplitClassesOptions {
  int per_class = 10;
  SplitPart part = SplitPart::kLabeled;
  int seed = 1;
};

ArtifactPtr RunSplitClasses(NodeContext& ctx, const SplitClassesOptions& options) {
  auto data = ctx.In<ClassSequences>("data");
  Rng rng = ShardRng(static_cast<uint64_t>(options.seed), 1000);
  const std::vector<bool> labeled =
      ValueOrThrow(ChooseLabeledPerClass(data->labels, data->num_classes, options.per_class, rng));
  auto out = std::make_shared<ClassSequences>();
  out->source = data->source;
  out->num_classes = data->num_classes;
  out->num_symbols = data->num_symbols;
  for (size_t i = 0; i < labeled.size(); ++i) {
    if (labeled[i] != (options.part == SplitPart::kLabeled)) continue;
    out->sequences.push_back(data->sequences[i]);
    out->labels.push_back(data->labels[i]);
  }
  ctx.Metric("sequences", static_cast<double>(out->sequences.size()));
  return out;
}

ParamTable<SplitClassesOptions> SplitClassesParams() {
  using O = SplitClassesOptions;
  ParamTable<O> table;
  table.Int("per_class", &O::per_class, "sequences of each class that are labeled")
      .Min(1)
      .Enum("part", &O::part, {SplitPart::kLabeled, SplitPart::kRest}, SplitPartName,
            "labeled: the chosen sequences; rest: the others (keeping their classes for scoring)")
      .Int("seed", &O::seed, "seed of the choice; the same seed gives complementary parts");
  return table;
}

}  // namespace

void RegisterClassSequencesNodes(Registry& registry) {
  registry.AddArtifactType<ClassSequences>();
  registry.AddKind(KindSpec{"read.class_sequences",
                            "1",
                            "Reads sequences with their classes, one a line: class<TAB>symbol ids separated by spaces "
                            "(seqflow-datagen --ji-case writes them). Classes and symbols are counted from the file.",
                            kSequences,
                            {},
                            ReadParams(),
                            RunRead});
  registry.AddKind(KindSpec{"split.classes",
                            "1",
                            "Chooses per_class sequences of every class with a seeded draw; part labeled keeps them, "
                            "part rest the others (with their classes, which only evaluators read).",
                            kSequences,
                            {PortSpec{"data", kSequences, false, false, "the pool"}},
                            SplitClassesParams(),
                            RunSplitClasses});
}

}  // namespace seqflow

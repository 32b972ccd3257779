// Adapter from the engine to FormatConll: the file goes into the run record (and the cache entry,
// so a cached rerun writes it again).
#include "nodes/eval/write_conll_node.h"

#include <memory>

#include "engine/api/node.h"
#include "nodes/eval/conll_writer.h"

namespace seqflow {
namespace {

ArtifactPtr RunWriteConll(NodeContext& ctx) {
  auto data = ctx.In<Corpus>("data");
  const auto predicted = ctx.InList<Predictions>("predicted");
  std::vector<const Predictions*> columns;
  for (const auto& p : predicted) columns.push_back(p.get());
  const ConllSeparator separator =
      ctx.params().GetString("separator") == "tab" ? ConllSeparator::kTab : ConllSeparator::kSpace;
  Result<std::string> text = FormatConll(*data, columns, separator);
  ThrowIfError(text.status().Annotate("node '" + ctx.node_name() + "'"));
  ctx.Attach("conll", std::move(text).value());
  auto counts = std::make_shared<Metrics>();
  counts->values = {{"sentences", static_cast<double>(data->sentences.size())},
                    {"tokens", static_cast<double>(data->num_tokens())}};
  for (const auto& [name, value] : counts->values) ctx.Metric(name, value);
  return counts;
}

}  // namespace

void RegisterWriteConllNode(Registry& registry) {
  registry.AddKind(
      KindSpec{"write.conll",
               "1",
               "Writes the sentences with their columns, gold labels (if any) and one column per prediction as a CoNLL "
               "file, DIR/<node>.conll of the run record (--out DIR); with one prediction the last two columns are "
               "conlleval's gold and guess.",
               std::string(Metrics::kType),
               {PortSpec{"data", std::string(Corpus::kType), false, false, "the decoded sentences"},
                PortSpec{"predicted", std::string(Predictions::kType), true, false,
                         "one or more predictions of those sentences, one column each, in this order"}},
               {ParamSpec::Enum("separator", {"space", "tab"}, "space",
                                "between fields; tab allows spaces inside tokens (read.conll's separator: tab)")},
               RunWriteConll});
}

}  // namespace seqflow

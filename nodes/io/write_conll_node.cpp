#include "nodes/io/write_conll_node.h"

#include <memory>
#include <string>
#include <vector>

#include "engine/api/node.h"
#include "nodes/io/conll_writer.h"

namespace seqflow {

namespace {

// The file goes into the run record, and with it into the cache entry, so a cached rerun writes
// it again.
struct WriteConllOptions {
  ConllSeparator separator = ConllSeparator::kSpace;
};

ArtifactPtr RunWriteConll(NodeContext& ctx, const WriteConllOptions& options) {
  auto data = ctx.In<Corpus>("data");
  std::vector<const Predictions*> columns;
  const auto predicted = ctx.InList<Predictions>("predicted");
  for (const auto& p : predicted) columns.push_back(p.get());
  Result<std::string> text = FormatConll(*data, columns, options.separator);
  ThrowIfError(text.status().Annotate("node '" + ctx.node_name() + "'"));
  ctx.Attach("conll", std::move(text).value());
  auto metrics = std::make_shared<Metrics>();
  metrics->values = {{"sentences", static_cast<double>(data->sentences.size())},
                     {"tokens", static_cast<double>(data->num_tokens())}};
  for (const auto& [name, value] : metrics->values) ctx.Metric(name, value);
  return metrics;
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
               ParamTable<WriteConllOptions>().Enum(
                   "separator", &WriteConllOptions::separator,
                   {{"space", ConllSeparator::kSpace}, {"tab", ConllSeparator::kTab}},
                   "between fields; tab allows spaces inside tokens (read.conll's separator: tab)"),
               RunWriteConll}
          .As(NodeRole::kWriter));
}

}  // namespace seqflow

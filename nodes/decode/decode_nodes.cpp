// Adapters between the engine and the chain library's corpus decoders.
#include "nodes/decode/decode_nodes.h"

#include <memory>
#include <string>

#include "engine/api/node.h"
#include "nodes/decode/tag_node.h"

namespace seqflow {
namespace {

ArtifactPtr RunDecoder(NodeContext& ctx, DecodeMethod method, bool marginals) {
  auto data = ctx.In<Corpus>("data");
  Result<Predictions> predicted = DecodeCorpus(*ctx.In<ChainModel>("model"), *data, method, marginals, ctx.threads());
  ThrowIfError(predicted.status().Annotate("node '" + ctx.node_name() + "'"));
  ctx.Metric("sentences", static_cast<double>(data->sentences.size()));
  ctx.Metric("tokens", static_cast<double>(data->num_tokens()));
  return std::make_shared<Predictions>(std::move(predicted).value());
}

std::vector<PortSpec> DecoderPorts() {
  return {ModelPort("the chain model (HMM, CRF, hybrid, ...) to decode with"),
          PortSpec{"data", std::string(Corpus::kType), false, false, "sentences to label (gold labels ignored)"}};
}

KindSpec ViterbiKind() {
  return KindSpec{"decode.viterbi",
                  "2",
                  "Labels each sentence with the model's most probable label sequence (Viterbi on the HMM's log "
                  "probabilities or the CRF's potentials; ties go to the lower label).",
                  std::string(Predictions::kType),
                  DecoderPorts(),
                  {},
                  [](NodeContext& ctx) { return RunDecoder(ctx, DecodeMethod::kViterbi, false); }};
}

struct SmsOptions {
  bool marginals = false;
};

KindSpec SmsKind() {
  return KindSpec{
      "decode.sms",
      "3",
      "Labels each token with its most probable label under the model's posteriors (sequence of "
      "most probable states, forward-backward on the HMM or the CRF).",
      std::string(Predictions::kType),
      DecoderPorts(),
      ParamTable<SmsOptions>().Bool("marginals", &SmsOptions::marginals,
                                    "keep the per-token state posteriors in the Predictions"),
      [](NodeContext& ctx, const SmsOptions& o) { return RunDecoder(ctx, DecodeMethod::kSms, o.marginals); }};
}

}  // namespace

PortSpec ModelPort(std::string doc) {
  return PortSpec{"model", std::string(ChainModel::kInterface), false, false, std::move(doc)};
}

Result<Predictions> DecodeCorpus(const ChainModel& model, const Corpus& data, DecodeMethod method, bool marginals,
                                 int threads) {
  SEQFLOW_ASSIGN_OR_RETURN(ChainCorpus chains, model.Chains(data, threads));
  Predictions out;
  out.label_names = model.ChainLabels();
  out.encoding = model.ChainEncoding();
  if (method == DecodeMethod::kViterbi) {
    out.labels = ChainViterbiCorpus(chains.tables, chains.columns, threads);
  } else {
    out.labels = ChainPosteriorCorpus(chains.tables, chains.columns, threads, marginals ? &out.marginals : nullptr);
  }
  return out;
}

void RegisterDecodeNodes(Registry& registry) {
  registry.AddArtifactType<Predictions>();
  registry.AddKind(ViterbiKind().Needing({.parallel = true, .memory_mb = 2048}));
  registry.AddKind(SmsKind().Needing({.parallel = true, .memory_mb = 2048}));
  RegisterTagNode(registry);
}

}  // namespace seqflow

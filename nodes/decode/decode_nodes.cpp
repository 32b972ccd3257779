// Adapters between the engine and the HMM decoding kernels.
#include "nodes/decode/decode_nodes.h"

#include <memory>
#include <string>

#include "engine/api/node.h"
#include "nodes/hmm/forward_backward.h"
#include "nodes/hmm/viterbi.h"

namespace seqflow {
namespace {

// Eigen's [T x K] column-major block as the row-major layout Predictions stores.
std::vector<double> RowMajor(const Eigen::MatrixXd& gamma) {
  std::vector<double> out(static_cast<size_t>(gamma.size()));
  Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(out.data(), gamma.rows(),
                                                                                     gamma.cols()) = gamma;
  return out;
}

ArtifactPtr RunDecoder(NodeContext& ctx, DecodeMethod method, bool marginals) {
  auto model = ctx.In<HmmModel>("model");
  ThrowIfError(ValidateHmmModel(*model).Annotate("node '" + ctx.node_name() + "'"));
  auto data = ctx.In<Corpus>("data");
  auto predictions = std::make_shared<Predictions>(DecodeCorpus(*model, *data, method, marginals, ctx.threads()));
  ctx.Metric("sentences", static_cast<double>(data->sentences.size()));
  ctx.Metric("tokens", static_cast<double>(data->num_tokens()));
  return predictions;
}

std::vector<PortSpec> DecoderPorts() {
  return {PortSpec{"model", std::string(HmmModel::kType), false, false, "the HMM to decode with"},
          PortSpec{"data", std::string(Corpus::kType), false, false, "sentences to label (gold labels ignored)"}};
}

KindSpec ViterbiKind() {
  return KindSpec{"decode.viterbi",
                  "1",
                  "Labels each sentence with the HMM's most probable state sequence (Viterbi, log space; "
                  "ties go to the lower state).",
                  std::string(Predictions::kType),
                  DecoderPorts(),
                  {},
                  [](NodeContext& ctx) { return RunDecoder(ctx, DecodeMethod::kViterbi, false); }};
}

KindSpec SmsKind() {
  return KindSpec{
      "decode.sms",
      "1",
      "Labels each token with its most probable state under the HMM's posteriors (sequence of "
      "most probable states, forward-backward).",
      std::string(Predictions::kType),
      DecoderPorts(),
      {ParamSpec::Bool("marginals", false, "keep the per-token state posteriors in the Predictions")},
      [](NodeContext& ctx) { return RunDecoder(ctx, DecodeMethod::kSms, ctx.params().GetBool("marginals")); }};
}

}  // namespace

Predictions DecodeCorpus(const HmmModel& model, const Corpus& data, DecodeMethod method, bool marginals, int threads) {
  Predictions out;
  out.label_names = model.label_names;
  out.encoding = model.encoding;
  const std::vector<std::vector<int32_t>> symbols = CorpusSymbols(*model.vocab, data);
  if (method == DecodeMethod::kViterbi) {
    out.labels = ViterbiCorpus(model.params, symbols, threads);
    return out;
  }
  std::vector<Eigen::MatrixXd> gammas;
  out.labels = PosteriorDecodeCorpus(model.params, symbols, threads, marginals ? &gammas : nullptr);
  for (const Eigen::MatrixXd& gamma : gammas) out.marginals.push_back(RowMajor(gamma));
  return out;
}

void RegisterDecodeNodes(Registry& registry) {
  registry.AddArtifactType<Predictions>();
  registry.AddKind(ViterbiKind());
  registry.AddKind(SmsKind());
}

}  // namespace seqflow

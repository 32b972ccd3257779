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
  auto data = ctx.In<Corpus>("data");
  std::shared_ptr<Predictions> predictions;
  if (auto crf = std::dynamic_pointer_cast<const CrfModel>(ctx.inputs("model").at(0))) {
    predictions = std::make_shared<Predictions>(DecodeCorpus(*crf, *data, method, marginals, ctx.threads()));
  } else {
    auto model = ctx.In<HmmModel>("model");
    ThrowIfError(ValidateHmmModel(*model).Annotate("node '" + ctx.node_name() + "'"));
    predictions = std::make_shared<Predictions>(DecodeCorpus(*model, *data, method, marginals, ctx.threads()));
  }
  ctx.Metric("sentences", static_cast<double>(data->sentences.size()));
  ctx.Metric("tokens", static_cast<double>(data->num_tokens()));
  return predictions;
}

std::vector<PortSpec> DecoderPorts() {
  return {PortSpec{"model", std::string(HmmModel::kType) + "|" + std::string(CrfModel::kType), false, false,
                   "the HMM or CRF to decode with"},
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

KindSpec SmsKind() {
  return KindSpec{
      "decode.sms",
      "2",
      "Labels each token with its most probable label under the model's posteriors (sequence of "
      "most probable states, forward-backward on the HMM or the CRF).",
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

Predictions DecodeCorpus(const CrfModel& model, const Corpus& data, DecodeMethod method, bool marginals, int threads) {
  Predictions out;
  out.label_names = model.label_names;
  out.encoding = model.encoding;
  out.labels.resize(data.sentences.size());
  const bool keep = method == DecodeMethod::kSms && marginals;
  if (keep) out.marginals.resize(data.sentences.size());
  const auto transition = CrfTransition(model.weights, model.layout());
  const ChainTransition chain_transition(transition);  // exp(A) once for the corpus
  ForEachCrfScores(model, data, threads, [&](size_t n, const RowMatrixXd& scores) {
    if (scores.rows() == 0) return;
    if (method == DecodeMethod::kViterbi) {
      out.labels[n] = ChainViterbi(scores, transition);
      return;
    }
    thread_local ChainWorkspace work;
    RowMatrixXd gamma(scores.rows(), scores.cols());
    ChainForwardBackward(scores, chain_transition, work, gamma.data(), nullptr);
    out.labels[n].resize(gamma.rows());
    for (Eigen::Index t = 0, best = 0; t < gamma.rows(); ++t) {
      gamma.row(t).maxCoeff(&best);
      out.labels[n][t] = static_cast<int32_t>(best);
    }
    if (keep) out.marginals[n].assign(gamma.data(), gamma.data() + gamma.size());
  });
  return out;
}

void RegisterDecodeNodes(Registry& registry) {
  registry.AddArtifactType<Predictions>();
  registry.AddKind(ViterbiKind());
  registry.AddKind(SmsKind());
}

}  // namespace seqflow

// Adapters between the engine and the HMM decoding kernels.
#include "nodes/decode/decode_nodes.h"

#include <fmt/format.h>

#include <memory>
#include <string>

#include "engine/api/node.h"
#include "nodes/common/parallel.h"
#include "nodes/decode/tag_node.h"
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
  auto predictions = std::make_shared<Predictions>(
      DecodeWithModel(*ctx.inputs("model").at(0), *data, method, marginals, ctx.threads(), ctx.node_name()));
  ctx.Metric("sentences", static_cast<double>(data->sentences.size()));
  ctx.Metric("tokens", static_cast<double>(data->num_tokens()));
  return predictions;
}

// Viterbi or posterior decoding of chains given by one label-bigram matrix and per-sentence scores.
Predictions DecodeChains(std::vector<std::string> label_names, TagEncoding encoding, const RowMatrixXd& transition,
                         size_t sentences, DecodeMethod method, bool marginals,
                         const std::function<void(const std::function<void(size_t, const RowMatrixXd&)>&)>& for_each) {
  Predictions out;
  out.label_names = std::move(label_names);
  out.encoding = encoding;
  out.labels.resize(sentences);
  const bool keep = method == DecodeMethod::kSms && marginals;
  if (keep) out.marginals.resize(sentences);
  const ChainTransition chain_transition(transition);  // exp(A) once for the corpus
  for_each([&](size_t n, const RowMatrixXd& scores) {
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

std::vector<PortSpec> DecoderPorts() {
  return {PortSpec{"model", kDecodableModels, false, false, "the HMM, CRF or hybrid model to decode with"},
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
      "2",
      "Labels each token with its most probable label under the model's posteriors (sequence of "
      "most probable states, forward-backward on the HMM or the CRF).",
      std::string(Predictions::kType),
      DecoderPorts(),
      ParamTable<SmsOptions>().Bool("marginals", &SmsOptions::marginals,
                                    "keep the per-token state posteriors in the Predictions"),
      [](NodeContext& ctx, const SmsOptions& o) { return RunDecoder(ctx, DecodeMethod::kSms, o.marginals); }};
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
  return DecodeChains(model.label_names, model.encoding, CrfTransition(model.weights, model.layout()),
                      data.sentences.size(), method, marginals,
                      [&](const auto& visit) { ForEachCrfScores(model, data, threads, visit); });
}

Predictions DecodeCorpus(const HybridModel& model, const Corpus& data, DecodeMethod method, bool marginals,
                         int threads) {
  const HybridCorpus corpus = BuildHybridCorpus(model.experts, model.symbols, model.label_names, data, false, threads);
  return DecodeChains(model.label_names, model.encoding,
                      HybridTransition(model.expert_transitions(), model.theta, model.gamma), data.sentences.size(),
                      method, marginals, [&](const auto& visit) {
                        ParallelShards(data.sentences.size(), 64, threads, [&](size_t, size_t begin, size_t end) {
                          RowMatrixXd scores;
                          for (size_t n = begin; n < end; ++n) {
                            HybridScores(corpus, n, model.theta, model.gamma, scores);
                            visit(n, scores);
                          }
                        });
                      });
}

Predictions DecodeWithModel(const Artifact& model, const Corpus& data, DecodeMethod method, bool marginals, int threads,
                            const std::string& node_name) {
  if (const auto* crf = dynamic_cast<const CrfModel*>(&model))
    return DecodeCorpus(*crf, data, method, marginals, threads);
  if (const auto* hybrid = dynamic_cast<const HybridModel*>(&model))
    return DecodeCorpus(*hybrid, data, method, marginals, threads);
  const auto* hmm = dynamic_cast<const HmmModel*>(&model);
  if (!hmm)
    throw StatusError(Status::Invalid(fmt::format("node '{}': cannot decode with a {}", node_name, model.type())));
  ThrowIfError(ValidateHmmModel(*hmm).Annotate("node '" + node_name + "'"));
  return DecodeCorpus(*hmm, data, method, marginals, threads);
}

void RegisterDecodeNodes(Registry& registry) {
  registry.AddArtifactType<Predictions>();
  registry.AddKind(ViterbiKind());
  registry.AddKind(SmsKind());
  RegisterTagNode(registry);
}

}  // namespace seqflow

// The decode family: label a corpus with a trained HMM or CRF (one decoder for both).
//   decode.viterbi  (model: HmmModel|CrfModel|HybridModel, data: Corpus) -> Predictions  most probable sequence
//   decode.sms      (model: HmmModel|CrfModel|HybridModel, data: Corpus) -> Predictions  sequence of most
//                   probable states (per-token posterior argmax); `marginals: true` keeps them
//   decode.tag      (model, data) -> Corpus  data plus a column of Viterbi labels (tag_node.h)
// HMM: words map to symbols through the model's Vocab. CRF: the model's templates and dictionary
// turn each sentence into label scores; a HybridModel sums its experts' and HMMs' log-potentials
// weighted by Γ. The Predictions carry the model's label names and
// encoding. Gold labels in `data`, if any, are ignored. Results do not depend on threads.
#pragma once

#include <string>

#include "engine/api/registry.h"
#include "nodes/crf/crf_model.h"
#include "nodes/crf/hybrid_model.h"
#include "nodes/decode/predictions.h"
#include "nodes/hmm/hmm_model.h"
#include "nodes/io/corpus.h"

namespace seqflow {

// The model types the decoders accept, as a port type.
inline const std::string kDecodableModels = "HmmModel|CrfModel|HybridModel";

// Registers the Predictions artifact type, decode.viterbi, decode.sms and decode.tag.
void RegisterDecodeNodes(Registry& registry);

enum class DecodeMethod { kViterbi, kSms };

// The body of the decoders without the engine. An empty sentence gets an empty label sequence
// (and, with marginals, an empty [0 x K] block). `marginals` is honoured by kSms only.
// REQUIRES: model.vocab non-null and ValidateHmmModel(model) ok.
Predictions DecodeCorpus(const HmmModel& model, const Corpus& data, DecodeMethod method, bool marginals, int threads);
// The same on a CRF's potentials. Throws StatusError when `data` lacks the template columns.
Predictions DecodeCorpus(const CrfModel& model, const Corpus& data, DecodeMethod method, bool marginals, int threads);
// The same on a hybrid model's merged potentials (HybridScores / HybridTransition).
Predictions DecodeCorpus(const HybridModel& model, const Corpus& data, DecodeMethod method, bool marginals,
                         int threads);
// Whichever of the above `model` is; errors name `node_name` (an invalid HMM, another type).
Predictions DecodeWithModel(const Artifact& model, const Corpus& data, DecodeMethod method, bool marginals, int threads,
                            const std::string& node_name);

}  // namespace seqflow

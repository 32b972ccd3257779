// The decode family: label a corpus with any trained chain model (nodes/chain/chain_model.h).
//   decode.viterbi  (model: ChainModel, data: Corpus) -> Predictions  most probable sequence
//   decode.sms      (model: ChainModel, data: Corpus) -> Predictions  sequence of most probable
//                   states (per-token posterior argmax); `marginals: true` keeps them
//   decode.tag      (model: ChainModel, data: Corpus) -> Corpus  data plus a column of Viterbi
//                   labels (tag_node.h)
// The model turns the corpus into chains (HMM: words to symbols through its Vocab; CRF: templates
// and dictionary to label scores; hybrid: its experts' and HMMs' potentials weighted by Γ), and
// the chain library decodes them (nodes/chain/chain_decode.h): a model family implements
// ChainModel and touches nothing here. The Predictions carry the model's label names and
// encoding. Gold labels in `data`, if any, are ignored. Results do not depend on threads.
#pragma once

#include <string>

#include "engine/api/registry.h"
#include "nodes/chain/chain_model.h"
#include "nodes/io/corpus.h"
#include "nodes/io/predictions.h"

namespace seqflow {

// Registers the Predictions artifact type, decode.viterbi, decode.sms and decode.tag.
void RegisterDecodeNodes(Registry& registry);

// The decoders' model port: any artifact type registered as implementing ChainModel.
PortSpec ModelPort(std::string doc);

enum class DecodeMethod { kViterbi, kSms };

// The body of the decoders without the engine. An empty sentence gets an empty label sequence
// (and, with marginals, an empty block); `marginals` is honoured by kSms only and gives row-major
// [T x K] posteriors per sentence. Errors: those of model.Chains (an invalid HMM, a template
// column missing from `data`).
Result<Predictions> DecodeCorpus(const ChainModel& model, const Corpus& data, DecodeMethod method, bool marginals,
                                 int threads);

}  // namespace seqflow

// The hmm family's node kinds and the HmmModel artifact type.
//   hmm.supervised  (data: Corpus (labeled), vocab: Vocab) -> HmmModel
//   hmm.em, hmm.em_sweep  EM_λ (em_nodes.h)
//   hmm.classifier  (data: ClassSequences) -> ClassifierModel (classifier_node.h)
//   hmm.self_train  (start: HmmModel, labeled, unlabeled: Corpus[]) -> HmmModel (self_train_node.h)
// The adapters are thin: the math is in supervised.h, the artifact in hmm_model.h.
#pragma once

#include <memory>

#include "engine/api/registry.h"
#include "engine/base/status.h"
#include "nodes/features/vocab.h"
#include "nodes/hmm/hmm_model.h"
#include "nodes/hmm/supervised.h"
#include "nodes/io/corpus.h"

namespace seqflow {

// Registers the HmmModel artifact type and every hmm.* kind.
void RegisterHmmNodes(Registry& registry);

// The body of hmm.supervised without the engine: a K = |labels| state HMM over vocab's symbols,
// estimated from `labeled` (words mapped through vocab.Id, so training words below the vocab's
// min_count teach the unknown classes' emissions). Invalid when `labeled` has no labels or a
// sentence's labels and words differ in length.
// REQUIRES: vocab non-null.
Result<std::shared_ptr<const HmmModel>> TrainSupervisedHmm(const Corpus& labeled, std::shared_ptr<const Vocab> vocab,
                                                           const HmmSmoothing& smoothing);

}  // namespace seqflow

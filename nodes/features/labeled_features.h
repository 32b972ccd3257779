// The featurised sentences of a labeled corpus, whole or one shard of it, and their bytes: shared
// by FeatureSet (the corpus in the artifact) and ShardedFeatureSet (a piece per shard), so that a
// shard's piece holds exactly the bytes FeatureSet writes for those sentences.
// Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/base/bytes.h"
#include "nodes/features/feature_templates.h"

namespace seqflow {

struct FeatureShard {
  std::vector<SentenceFeatures> sentences;
  std::vector<std::vector<int32_t>> labels;  // [sentence][token], empty when the corpus is unlabeled
};

size_t NumTokens(const std::vector<SentenceFeatures>& sentences);

void SaveFeatureSentences(ByteWriter& w, const std::vector<SentenceFeatures>& sentences,
                          const std::vector<std::vector<int32_t>>& labels);
// Reads what SaveFeatureSentences wrote; throws StatusError(Corruption) for offsets that are not
// a CSR or an attribute id outside [0, num_attributes).
void LoadFeatureSentences(ByteReader& r, int32_t num_attributes, std::vector<SentenceFeatures>* sentences,
                          std::vector<std::vector<int32_t>>* labels);
// Throws StatusError(Corruption) unless `labels` is empty or has one label in [0, num_labels) per
// token of `sentences`.
void CheckFeatureLabels(const std::vector<SentenceFeatures>& sentences,
                        const std::vector<std::vector<int32_t>>& labels, size_t num_labels);

}  // namespace seqflow

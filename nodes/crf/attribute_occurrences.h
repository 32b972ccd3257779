// The inverted index of a featurised corpus: for each attribute, the tokens it fires at (tokens
// numbered across the corpus in sentence order; a token repeats when an attribute fires twice
// there). Shared by the CRF gradient's gather pass and the grouping of duplicate attributes.
// Pure; thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "nodes/features/feature_templates.h"

namespace seqflow {

struct AttributeOccurrences {
  std::vector<int64_t> start;   // [A + 1] CSR offsets
  std::vector<int32_t> tokens;  // increasing within an attribute
  const int32_t* begin(int64_t a) const { return tokens.data() + start[a]; }
  const int32_t* end(int64_t a) const { return tokens.data() + start[a + 1]; }
};

// REQUIRES: attribute ids in [0, num_attributes), fewer than 2^31 tokens.
AttributeOccurrences IndexOccurrences(const std::vector<SentenceFeatures>& sentences, int64_t num_attributes);

}  // namespace seqflow

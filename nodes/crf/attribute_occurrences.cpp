#include "nodes/crf/attribute_occurrences.h"

namespace seqflow {

AttributeOccurrences IndexOccurrences(const std::vector<SentenceFeatures>& sentences, int64_t num_attributes) {
  AttributeOccurrences o;
  o.start.assign(static_cast<size_t>(num_attributes) + 1, 0);
  for (const SentenceFeatures& s : sentences)
    for (int32_t id : s.ids) ++o.start[id + 1];
  for (int64_t a = 0; a < num_attributes; ++a) o.start[a + 1] += o.start[a];
  o.tokens.resize(o.start.back());
  std::vector<int64_t> fill(o.start.begin(), o.start.end() - 1);
  int32_t token = 0;
  for (const SentenceFeatures& s : sentences)
    for (int32_t t = 0; t < s.size(); ++t, ++token)
      for (int32_t i = s.offsets[t]; i < s.offsets[t + 1]; ++i) o.tokens[fill[s.ids[i]]++] = token;
  return o;
}

}  // namespace seqflow

// The grouping of duplicate attributes crf.train used before the partition refinement
// (nodes/crf/attribute_groups.h): the whole corpus's inverted index, each attribute's token list
// hashed and compared with those of earlier groups. It needs every sentence at once; kept as the
// oracle the refinement is tested against (attribute_groups_test) and timed against
// (bench/kernels/crf_bench.cpp). Returns group_of [A], groups numbered by first member.
#pragma once

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "nodes/crf/attribute_occurrences.h"

namespace seqflow::testutil {

inline std::vector<int32_t> GroupByTokenLists(const std::vector<SentenceFeatures>& sentences,
                                              int32_t num_attributes) {
  const AttributeOccurrences occ = IndexOccurrences(sentences, num_attributes);
  auto hash = [](const int32_t* begin, const int32_t* end) {
    uint64_t h = 1469598103934665603ull;
    for (const int32_t* p = begin; p != end; ++p) h = (h ^ static_cast<uint32_t>(*p)) * 1099511628211ull;
    return h ^ static_cast<uint64_t>(end - begin);
  };
  std::vector<int32_t> group_of(num_attributes);
  std::unordered_multimap<uint64_t, int32_t> first_member;  // hash -> group's first attribute
  first_member.reserve(static_cast<size_t>(num_attributes));
  int32_t groups = 0;
  for (int32_t a = 0; a < num_attributes; ++a) {
    const uint64_t h = hash(occ.begin(a), occ.end(a));
    int32_t group = -1;
    for (auto [it, last] = first_member.equal_range(h); it != last && group < 0; ++it)
      if (std::equal(occ.begin(a), occ.end(a), occ.begin(it->second), occ.end(it->second)))
        group = group_of[it->second];
    if (group < 0) {
      group = groups++;
      first_member.emplace(h, a);
    }
    group_of[a] = group;
  }
  return group_of;
}

}  // namespace seqflow::testutil

#include "nodes/crf/attribute_groups.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <utility>

#include "nodes/crf/attribute_occurrences.h"

namespace seqflow {
namespace {

uint64_t HashTokens(const int32_t* begin, const int32_t* end) {
  uint64_t h = 1469598103934665603ull;
  for (const int32_t* p = begin; p != end; ++p) h = (h ^ static_cast<uint32_t>(*p)) * 1099511628211ull;
  return h ^ static_cast<uint64_t>(end - begin);
}

}  // namespace

AttributeGroups GroupDuplicateAttributes(const std::vector<SentenceFeatures>& sentences, int32_t num_attributes) {
  const AttributeOccurrences occ = IndexOccurrences(sentences, num_attributes);
  auto tokens_of = [&](int32_t a) { return std::make_pair(occ.begin(a), occ.end(a)); };
  AttributeGroups g;
  g.group_of.resize(num_attributes);
  std::unordered_multimap<uint64_t, int32_t> first_member;  // hash -> group's first attribute
  std::vector<int32_t> representative;                      // [G] first attribute
  representative.reserve(static_cast<size_t>(num_attributes));
  first_member.reserve(static_cast<size_t>(num_attributes));
  for (int32_t a = 0; a < num_attributes; ++a) {
    const auto [begin, end] = tokens_of(a);
    const uint64_t h = HashTokens(begin, end);
    int32_t group = -1;
    for (auto [it, last] = first_member.equal_range(h); it != last && group < 0; ++it) {
      const auto [b2, e2] = tokens_of(it->second);
      if (std::equal(begin, end, b2, e2)) group = g.group_of[it->second];
    }
    if (group < 0) {
      group = static_cast<int32_t>(g.size.size());
      g.size.push_back(0);
      representative.push_back(a);
      first_member.emplace(h, a);
    }
    g.group_of[a] = group;
    ++g.size[group];
  }
  g.sentences.reserve(sentences.size());
  for (const SentenceFeatures& s : sentences) {
    SentenceFeatures merged;
    merged.offsets.push_back(0);
    for (int32_t t = 0; t < s.size(); ++t) {
      // Members fire together, so the group fires once for each firing of its first member
      // (keeping multiplicities when an attribute repeats within a token).
      for (int32_t i = s.offsets[t]; i < s.offsets[t + 1]; ++i) {
        const int32_t group = g.group_of[s.ids[i]];
        if (representative[group] == s.ids[i]) merged.ids.push_back(group);
      }
      merged.offsets.push_back(static_cast<int32_t>(merged.ids.size()));
    }
    g.sentences.push_back(std::move(merged));
  }
  return g;
}

std::vector<double> GroupFeatureValues(const AttributeGroups& groups) {
  std::vector<double> values(groups.size.size());
  for (size_t g = 0; g < values.size(); ++g) values[g] = std::sqrt(static_cast<double>(groups.size[g]));
  return values;
}

Eigen::VectorXd ExpandGroupWeights(const Eigen::VectorXd& group_weights, const AttributeGroups& groups,
                                   int64_t num_labels) {
  const int64_t K = num_labels, A = static_cast<int64_t>(groups.group_of.size());
  const int64_t transitions = group_weights.size() - static_cast<int64_t>(groups.num_groups()) * K;
  Eigen::VectorXd w(A * K + transitions);
  for (int64_t a = 0; a < A; ++a) {
    const int32_t group = groups.group_of[a];
    w.segment(a * K, K) = group_weights.segment(static_cast<int64_t>(group) * K, K) / std::sqrt(groups.size[group]);
  }
  w.tail(transitions) = group_weights.tail(transitions);
  return w;
}

}  // namespace seqflow

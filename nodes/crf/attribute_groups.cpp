#include "nodes/crf/attribute_groups.h"

#include <cmath>
#include <utility>

namespace seqflow {

AttributeGroups GroupsOf(std::vector<int32_t> group_of) {
  AttributeGroups g;
  g.group_of = std::move(group_of);
  for (size_t a = 0; a < g.group_of.size(); ++a) {
    const int32_t group = g.group_of[a];
    if (group == g.num_groups()) {
      g.size.push_back(0);
      g.representative.push_back(static_cast<int32_t>(a));
    }
    ++g.size[group];
  }
  return g;
}

AttributePartition::AttributePartition(int32_t num_attributes)
    : class_of_(num_attributes, 0), class_size_{num_attributes}, count_(num_attributes, 0) {}

void AttributePartition::Refine(const std::vector<SentenceFeatures>& sentences) {
  for (const SentenceFeatures& s : sentences)
    for (int32_t t = 0; t < s.size(); ++t) RefineToken(s.ids.data() + s.offsets[t], s.ids.data() + s.offsets[t + 1]);
}

void AttributePartition::RefineToken(const int32_t* begin, const int32_t* end) {
  for (const int32_t* a = begin; a != end; ++a) ++count_[*a];
  splits_.clear();
  for (const int32_t* a = begin; a != end; ++a) {
    const int32_t count = std::exchange(count_[*a], 0);
    if (count == 0) continue;  // a repeat, moved at its first firing
    const int32_t from = class_of_[*a];
    Split* split = nullptr;
    for (Split& s : splits_)
      if (s.from == from && s.count == count) split = &s;
    if (split == nullptr) {
      int32_t to = static_cast<int32_t>(class_size_.size());
      if (!free_.empty()) {
        to = free_.back();
        free_.pop_back();
        class_size_[to] = 0;
      } else {
        class_size_.push_back(0);
      }
      splits_.push_back({from, count, to});
      split = &splits_.back();
    }
    --class_size_[from];
    ++class_size_[split->to];
    class_of_[*a] = split->to;
  }
  // A class all of whose members moved is empty: its id is free (freed once, marked -1).
  for (const Split& s : splits_)
    if (class_size_[s.from] == 0) {
      class_size_[s.from] = -1;
      free_.push_back(s.from);
    }
}

AttributeGroups AttributePartition::Groups() const {
  std::vector<int32_t> number(class_size_.size(), -1);
  std::vector<int32_t> group_of(class_of_.size());
  int32_t groups = 0;
  for (size_t a = 0; a < class_of_.size(); ++a) {
    int32_t& n = number[class_of_[a]];
    if (n < 0) n = groups++;
    group_of[a] = n;
  }
  return GroupsOf(std::move(group_of));
}

AttributeGroups GroupDuplicateAttributes(const std::vector<SentenceFeatures>& sentences, int32_t num_attributes) {
  AttributePartition partition(num_attributes);
  partition.Refine(sentences);
  return partition.Groups();
}

std::vector<SentenceFeatures> MergeSentences(const std::vector<SentenceFeatures>& sentences,
                                             const AttributeGroups& groups) {
  std::vector<SentenceFeatures> out;
  out.reserve(sentences.size());
  for (const SentenceFeatures& s : sentences) {
    SentenceFeatures merged;
    merged.offsets.reserve(s.offsets.size());
    merged.offsets.push_back(0);
    for (int32_t t = 0; t < s.size(); ++t) {
      // Members fire together, so the group fires once for each firing of its first member.
      for (int32_t i = s.offsets[t]; i < s.offsets[t + 1]; ++i) {
        const int32_t group = groups.group_of[s.ids[i]];
        if (groups.representative[group] == s.ids[i]) merged.ids.push_back(group);
      }
      merged.offsets.push_back(static_cast<int32_t>(merged.ids.size()));
    }
    out.push_back(std::move(merged));
  }
  return out;
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

#include "nodes/moments/anchors.h"

#include <algorithm>
#include <cstdio>

namespace seqflow {

namespace {

std::string Number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// The one label the dictionary allows for w, -1 if it lists none, -2 if several.
int32_t DictionaryLabel(const AnchorInputs& in, int32_t w) {
  if (in.dictionary.empty() || in.dictionary[w].empty()) return -1;
  const std::vector<int32_t>& tags = in.dictionary[w];
  for (int32_t t : tags)
    if (t != tags.front()) return -2;
  return tags.front();
}

}  // namespace

Result<std::vector<std::vector<int32_t>>> SelectAnchors(const AnchorInputs& in, const AnchorOptions& options) {
  const auto k = static_cast<int32_t>(in.labeled_counts.cols());
  const auto v = static_cast<int32_t>(in.labeled_counts.rows());
  if (in.label_names == nullptr || static_cast<int32_t>(in.label_names->size()) != k ||
      in.unlabeled_counts.size() != v || (!in.dictionary.empty() && static_cast<int32_t>(in.dictionary.size()) != v) ||
      in.num_known > v)
    return Status::Invalid("anchor selection: inputs disagree in size");
  std::vector<std::vector<int32_t>> anchors(k);
  for (int32_t w = 0; w < in.num_known; ++w) {
    if (in.unlabeled_counts[w] < static_cast<double>(options.min_unlabeled_count)) continue;
    const int32_t listed = DictionaryLabel(in, w);
    if (listed == -2) continue;
    const double n = in.labeled_counts.row(w).sum();
    int32_t label = -1;
    Eigen::Index best = 0;
    const double share = n > 0 ? in.labeled_counts.row(w).maxCoeff(&best) / n : 0;
    if (n >= static_cast<double>(std::max<int64_t>(options.min_labeled_count, 1)) && share >= options.threshold) {
      if (listed >= 0 && listed != best) continue;
      label = static_cast<int32_t>(best);
    } else if (listed >= 0 && in.labeled_counts(w, listed) == n) {
      label = listed;
    }
    if (label >= 0) anchors[label].push_back(w);
  }
  for (int32_t h = 0; h < k; ++h) {
    std::vector<int32_t>& a = anchors[h];
    std::stable_sort(a.begin(), a.end(),
                     [&](int32_t x, int32_t y) { return in.unlabeled_counts[x] > in.unlabeled_counts[y]; });
    if (static_cast<int64_t>(a.size()) > options.max_per_label) a.resize(static_cast<size_t>(options.max_per_label));
    if (a.empty() && !options.allow_unanchored)
      return Status::Invalid(
          "label '" + (*in.label_names)[h] + "' has no anchor word (threshold " + Number(options.threshold) +
          ", min_labeled_count " + std::to_string(options.min_labeled_count) + ", min_unlabeled_count " +
          std::to_string(options.min_unlabeled_count) + "): lower them, add labeled data or a tag dictionary");
  }
  return anchors;
}

}  // namespace seqflow

// Anchor words per label (Marinho et al. 2016, §3.2 and §5 "Selecting anchors"): words whose
// label is (nearly) deterministic, taken from token supervision (a small labeled corpus) and
// optionally type supervision (a tag dictionary), as Table 3's "token" and "type+token".
//
// A symbol w is a candidate anchor of label h when it is a known word (not an unknown-word class),
// was seen at least min_unlabeled_count times in the unlabeled text, and either
//   token: n_L(w) >= min_labeled_count and n_L(w, h) / n_L(w) >= threshold, and the dictionary
//          lists nothing for w or only h; or
//   type:  the dictionary lists h and only h for w, and every labeled token of w (if any) is h.
// A word the dictionary lists with several labels is never an anchor. Each label keeps its
// max_per_label candidates seen most often in the unlabeled text (ties: smaller symbol id). A
// label left with no anchor is an error naming it. Pure; thread safety: stateless.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/base/status.h"

namespace seqflow {

struct AnchorOptions {
  int64_t max_per_label = 500;
  double threshold = 1.0;           // on p̂(h | w) in the labeled data
  int64_t min_labeled_count = 1;    // n_L(w) for token anchors
  int64_t min_unlabeled_count = 1;  // n_U(w)
  // A label without anchors is an error unless this is set; then its list stays empty and the
  // anchor HMM estimates its context moments from its labeled tokens instead.
  bool allow_unanchored = false;
};

struct AnchorInputs {
  const std::vector<std::string>* label_names;   // [K], for messages
  int32_t num_known = 0;                         // symbols [0, num_known) are words; the rest unknown classes
  Eigen::MatrixXd labeled_counts;                // [V x K] n_L(w, h)
  Eigen::VectorXd unlabeled_counts;              // [V] n_U(w)
  std::vector<std::vector<int32_t>> dictionary;  // [V] labels the dictionary lists for w; empty: none
};

// anchors[h] = the anchor symbols of label h, most frequent first. Invalid (unless
// allow_unanchored) naming the first label without an anchor, e.g. "label 'X' has no anchor word (threshold 1,
// min_labeled_count 5, min_unlabeled_count 20): lower them or add labeled data".
Result<std::vector<std::vector<int32_t>>> SelectAnchors(const AnchorInputs& in, const AnchorOptions& options);

}  // namespace seqflow

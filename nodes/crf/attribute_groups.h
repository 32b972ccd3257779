// Attributes that fire at exactly the same tokens are interchangeable in a CRF: the scores depend
// only on the sum of their m weight rows, and for a fixed sum the Gaussian penalty Σ ‖w_a‖² / 2δ²
// is smallest with equal shares. The optimum (unique: the objective is strictly convex) is
// therefore symmetric, w_a = u / √m for one row u per group, and in that coordinate the penalty
// is ‖u‖² / 2δ² and the group fires with feature value √m. The map u -> (u/√m, ..., u/√m) is an
// isometry onto the symmetric weights, so L-BFGS on u takes the very steps it would take on the
// full model from zero (whose iterates stay symmetric), with fewer weights. On CoNLL-2000's standard template the
// 338,551 attributes form 241,689 groups (most singletons: the attributes seen once at a token are all one group),
// which cuts L-BFGS's memory and vector passes by 29%.
//
// The groups are found by partition refinement over the tokens, so the sentences can be streamed
// (a ShardedFeatureSet's shards, one at a time) in O(A) memory: start with every attribute in one
// class; each token splits every class it touches into its members firing there k times (one
// class per k) and the rest. After every token, two attributes share a class iff they fired the
// same number of times at each token seen: at the end, iff they fire at the same multiset of
// tokens. Pure functions; AttributePartition is one caller's.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <vector>

#include "nodes/features/feature_templates.h"

namespace seqflow {

struct AttributeGroups {
  std::vector<int32_t> group_of;        // [A] group of each attribute
  std::vector<int32_t> size;            // [G] attributes in each group
  std::vector<int32_t> representative;  // [G] its first (smallest) attribute
  int32_t num_groups() const { return static_cast<int32_t>(size.size()); }
};

// The groups of `group_of` when group ids follow their first member's attribute id (as every
// AttributeGroups' do): sizes and representatives. REQUIRES: that numbering.
AttributeGroups GroupsOf(std::vector<int32_t> group_of);

class AttributePartition {
 public:
  explicit AttributePartition(int32_t num_attributes);
  // Refines by every token of `sentences` (the order of tokens does not matter).
  // REQUIRES: attribute ids in [0, num_attributes).
  void Refine(const std::vector<SentenceFeatures>& sentences);
  // The classes so far, numbered in the order of their first member's attribute id.
  AttributeGroups Groups() const;

 private:
  void RefineToken(const int32_t* begin, const int32_t* end);

  struct Split {
    int32_t from, count, to;  // the members of class `from` firing `count` times go to class `to`
  };
  std::vector<int32_t> class_of_;    // [A]
  std::vector<int32_t> class_size_;  // [class ids] members; -1 for a free id
  std::vector<int32_t> free_;        // class ids to reuse: ids stay below 2A
  std::vector<int32_t> count_;       // [A] firings at the current token; 0 between tokens
  std::vector<Split> splits_;        // the current token's
};

// Groups attributes by the exact multiset of tokens they fire at (AttributePartition over
// `sentences`). Group ids follow the first member's attribute id.
// REQUIRES: attribute ids in [0, num_attributes).
AttributeGroups GroupDuplicateAttributes(const std::vector<SentenceFeatures>& sentences, int32_t num_attributes);

// `sentences` with group ids: each group fires once for each firing of its first member (keeping
// multiplicities when an attribute repeats within a token); within a token, group ids keep the
// order of their first member.
std::vector<SentenceFeatures> MergeSentences(const std::vector<SentenceFeatures>& sentences,
                                             const AttributeGroups& groups);

// The feature value √m of every group.
std::vector<double> GroupFeatureValues(const AttributeGroups& groups);

// Per-attribute rows [A x K] from group rows [G x K]: w_a = u_{group(a)} / √size(group). The
// trailing transition weights (everything after the rows: the label bigrams, and the trigrams of
// a second-order CRF) are copied.
Eigen::VectorXd ExpandGroupWeights(const Eigen::VectorXd& group_weights, const AttributeGroups& groups,
                                   int64_t num_labels);

}  // namespace seqflow

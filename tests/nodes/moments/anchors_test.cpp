// Anchor selection: thresholds, counts, dictionary (type) supervision, ordering and the error
// naming a label without anchors.
#include "nodes/moments/anchors.h"

#include <gtest/gtest.h>

#include "tests/testutil/status_matchers.h"

namespace seqflow {
namespace anchors_test {

const std::vector<std::string> kLabels = {"NOUN", "VERB", "DET"};

// Symbols 0..5 are words, 6 an unknown-word class.
AnchorInputs Inputs() {
  AnchorInputs in;
  in.label_names = &kLabels;
  in.num_known = 6;
  in.labeled_counts = Eigen::MatrixXd::Zero(7, 3);
  in.labeled_counts.row(0) << 5, 0, 0;  // always NOUN
  in.labeled_counts.row(1) << 9, 1, 0;  // NOUN 90 %
  in.labeled_counts.row(2) << 0, 3, 0;  // always VERB
  in.labeled_counts.row(3) << 0, 0, 8;  // always DET
  in.labeled_counts.row(4) << 1, 0, 0;  // NOUN once
  in.labeled_counts.row(6) << 4, 0, 0;  // the unknown class: never an anchor
  in.unlabeled_counts = (Eigen::VectorXd(7) << 10, 50, 30, 100, 70, 5, 99).finished();
  return in;
}

TEST(SelectAnchors, TokenAnchorsByThresholdMostFrequentFirst) {
  AnchorOptions options;
  Result<std::vector<std::vector<int32_t>>> a = SelectAnchors(Inputs(), options);
  ASSERT_OK(a);
  EXPECT_EQ((*a)[0], (std::vector<int32_t>{4, 0}));  // 70 then 10 unlabeled occurrences; 1 is ambiguous
  EXPECT_EQ((*a)[1], (std::vector<int32_t>{2}));
  EXPECT_EQ((*a)[2], (std::vector<int32_t>{3}));
  options.threshold = 0.9;
  options.max_per_label = 2;
  a = SelectAnchors(Inputs(), options);
  ASSERT_OK(a);
  EXPECT_EQ((*a)[0], (std::vector<int32_t>{4, 1}));  // 1 passes at 0.9; capped at two
}

TEST(SelectAnchors, MinimumCounts) {
  AnchorOptions options;
  options.min_labeled_count = 2;
  options.min_unlabeled_count = 20;
  Result<std::vector<std::vector<int32_t>>> a = SelectAnchors(Inputs(), options);
  ASSERT_FALSE(a.ok());  // NOUN: 0 has 10 unlabeled, 4 one labeled occurrence
  EXPECT_EQ(a.status().message(),
            "label 'NOUN' has no anchor word (threshold 1, min_labeled_count 2, min_unlabeled_count 20): lower them, "
            "add labeled data or a tag dictionary");
  options.allow_unanchored = true;
  a = SelectAnchors(Inputs(), options);
  ASSERT_OK(a);
  EXPECT_TRUE((*a)[0].empty());
  EXPECT_EQ((*a)[2], (std::vector<int32_t>{3}));
}

TEST(SelectAnchors, DictionaryAddsTypeAnchorsAndVetoesAmbiguousWords) {
  AnchorInputs in = Inputs();
  in.dictionary.resize(7);
  in.dictionary[5] = {1};     // unlabeled-only word listed as VERB: a type anchor
  in.dictionary[4] = {0, 1};  // listed with two labels: never an anchor
  in.dictionary[2] = {0};     // tokens say VERB, the dictionary NOUN: a conflict, dropped
  Result<std::vector<std::vector<int32_t>>> a = SelectAnchors(in, AnchorOptions());
  ASSERT_OK(a);
  EXPECT_EQ((*a)[0], (std::vector<int32_t>{0}));
  EXPECT_EQ((*a)[1], (std::vector<int32_t>{5}));
}

}  // namespace anchors_test
}  // namespace seqflow

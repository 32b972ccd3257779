#include "nodes/io/predictions.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace seqflow {
namespace predictions_test {

std::string Bytes(const Predictions& p) {
  ByteWriter w;
  p.Save(w);
  return w.Take();
}

Predictions Sample() {
  Predictions p;
  p.label_names = {"B-NP", "I-NP", "O"};
  p.encoding = TagEncoding::kIob2;
  p.labels = {{0, 1, 2}, {}, {2}};
  // Doubles that a text format would round: they must come back bit for bit.
  p.marginals = {{0.1, 0.2, 0.7, 1.0 / 3, std::nextafter(0.5, 1.0), 0.0, 1e-300, 0.6, 0.4}, {}, {0.25, 0.25, 0.5}};
  return p;
}

std::string LoadError(const Predictions& p) {
  std::string bytes = Bytes(p);
  ByteReader r(bytes);
  try {
    Predictions::Load(r);
  } catch (const StatusError& e) {
    return e.status().ToString();
  }
  return "loaded";
}

TEST(Predictions, LoadRejectsInconsistentShapes) {
  Predictions p = Sample();
  p.labels[2][0] = 3;
  EXPECT_EQ(LoadError(p), "Predictions: label id 3 out of range");
  p = Sample();
  p.marginals[2].pop_back();
  EXPECT_EQ(LoadError(p), "Predictions: marginals of sentence 3 are not T x K");
  p = Sample();
  p.marginals.pop_back();
  EXPECT_EQ(LoadError(p), "Predictions: marginals and labels cover different sentences");
}

TEST(Predictions, RoundTripIsBitExact) {
  Predictions p = Sample();
  std::string bytes = Bytes(p);
  ByteReader r(bytes);
  auto back = Predictions::Load(r);
  EXPECT_EQ(back->label_names, p.label_names);
  EXPECT_EQ(back->encoding, TagEncoding::kIob2);
  EXPECT_EQ(back->labels, p.labels);
  ASSERT_EQ(back->marginals.size(), 3u);
  for (size_t s = 0; s < 3; ++s) EXPECT_EQ(back->marginals[s], p.marginals[s]);  // exact ==
  EXPECT_EQ(Bytes(*back), bytes);
  EXPECT_EQ(back->Describe(), "3 sentences, 4 tokens, 3 labels, with marginals");
}

TEST(Predictions, WithoutMarginals) {
  Predictions p = Sample();
  p.marginals.clear();
  std::string bytes = Bytes(p);
  ByteReader r(bytes);
  auto back = Predictions::Load(r);
  EXPECT_TRUE(back->marginals.empty());
  EXPECT_EQ(back->Describe(), "3 sentences, 4 tokens, 3 labels");
}

TEST(Predictions, LoadRejectsTruncationAndTrailingBytes) {
  std::string bytes = Bytes(Sample());
  for (size_t cut : {size_t{0}, size_t{5}, bytes.size() - 8, bytes.size() - 1}) {
    ByteReader r(std::string_view(bytes).substr(0, cut));
    EXPECT_THROW(Predictions::Load(r), StatusError) << "cut at " << cut;
  }
  std::string longer = bytes + '\0';
  ByteReader r(longer);
  EXPECT_THROW(Predictions::Load(r), StatusError);
}

}  // namespace predictions_test
}  // namespace seqflow

// The validity cases' generators (datasets/anchor_hmm_data.h, two_view_data.h): the assumption
// each case stands on holds in what they write (every state has anchors, the tag dictionary is
// the emission's support; two views drawn apart given the label), determinism, and pinned bytes.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>

#include "datasets/anchor_hmm_data.h"
#include "datasets/chunk_hmm_data.h"
#include "datasets/hmm_class_data.h"
#include "datasets/two_view_data.h"

namespace seqflow {
namespace validity_datagen_test {

uint64_t Fnv1a(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

TEST(AnchorHmmData, EveryStateHasAnchorsAndTheDictionaryIsTheEmissionSupport) {
  const AnchorHmmSpec spec;
  const AnchorHmm hmm = BuildAnchorHmm(spec, 1);
  const Eigen::MatrixXd& o = hmm.params.emission;
  ASSERT_EQ(o.rows(), 12);
  ASSERT_EQ(o.cols(), spec.vocabulary);
  std::vector<int> anchors(12, 0);
  for (int w = 0; w < spec.vocabulary; ++w) {
    int states = 0;
    for (int h = 0; h < 12; ++h) states += o(h, w) > 0;
    EXPECT_EQ(states == 1, hmm.anchor_of[w] >= 0) << w;
    if (hmm.anchor_of[w] >= 0) {
      EXPECT_GT(o(hmm.anchor_of[w], w), 0.0);
      ++anchors[hmm.anchor_of[w]];
    }
  }
  for (int h = 0; h < 12; ++h) {
    EXPECT_GE(anchors[h], 50) << hmm.state_names[h];
    EXPECT_NEAR(o.row(h).sum(), 1.0, 1e-12);
  }
  // The dictionary line of word w lists exactly the states that emit it.
  std::istringstream dictionary(FormatTagDictionary(hmm));
  std::string line;
  for (int w = 0; std::getline(dictionary, line); ++w) {
    std::istringstream entries(line);
    std::set<std::string> tags;
    for (std::string entry; entries >> entry;) {
      EXPECT_EQ(entry.substr(0, entry.find('|')), hmm.words[w]);
      tags.insert(entry.substr(entry.find('|') + 1));
    }
    std::set<std::string> emitting;
    for (int h = 0; h < 12; ++h)
      if (o(h, w) > 0) emitting.insert(hmm.state_names[h]);
    EXPECT_EQ(tags, emitting) << hmm.words[w];
  }
}

TEST(AnchorHmmData, SplitsHaveTheirOwnStreamsAndPinnedBytes) {
  const AnchorHmmSpec spec;
  const AnchorHmm hmm = BuildAnchorHmm(spec, 1);
  auto conll = [&](FieldSplit split, size_t n) {
    return FormatFieldConll(SampleTaggedHmm(hmm, 1, split, n), hmm.state_names);
  };
  const std::string labeled = conll(FieldSplit::kLabeled, 150);
  EXPECT_EQ(conll(FieldSplit::kLabeled, 300).substr(0, labeled.size()), labeled);
  EXPECT_NE(conll(FieldSplit::kTest, 150), labeled);
  EXPECT_EQ(Fnv1a(labeled), 0x84e38b53d8d8c1beULL) << std::hex << "0x" << Fnv1a(labeled);
}

TEST(TwoViewData, ViewsAreDrawnApartGivenTheLabel) {
  const std::string conll = SampleTwoViewConll(TwoViewSpec(), 1, 3000);
  std::istringstream lines(conll);
  std::string line;
  size_t length = 0;
  // counts[label][word-view home][surface class]: within a label, the surface class must not
  // depend on the word.
  std::map<std::string, std::map<std::string, std::map<std::string, double>>> counts;
  while (std::getline(lines, line)) {
    if (line.empty()) {
      EXPECT_GE(length, 10u);
      EXPECT_LE(length, 40u);
      length = 0;
      continue;
    }
    ++length;
    std::istringstream fields(line);
    std::string word, surface, label;
    ASSERT_TRUE(fields >> word >> surface >> label) << line;
    counts[label][word.size() % 2 ? "odd" : "even"][surface] += 1;
  }
  ASSERT_EQ(counts.size(), 4u);
  for (auto& [label, by_word] : counts) {
    // p(surface | label, word length parity) is the same for both parities, to sampling noise.
    double odd_total = 0, even_total = 0;
    for (auto& [s, n] : by_word["odd"]) odd_total += n;
    for (auto& [s, n] : by_word["even"]) even_total += n;
    for (auto& [s, n] : by_word["odd"])
      EXPECT_NEAR(n / odd_total, by_word["even"][s] / even_total, 0.03) << label << " " << s;
  }
  EXPECT_EQ(Fnv1a(SampleTwoViewConll(TwoViewSpec(), 1, 100)), 0xb73bdf306bf9fe7aULL)
      << std::hex << "0x" << Fnv1a(SampleTwoViewConll(TwoViewSpec(), 1, 100));
}

// The chunk HMM writes valid IOB2 (an I- tag only after a tag of its chunk), three columns, and
// its text split the same sentences' words without tags.
TEST(ChunkHmmData, ValidIob2AndPinnedBytes) {
  const ChunkHmmSpec spec;
  const std::string conll = SampleChunkConll(spec, 1, FieldSplit::kLabeled, 300);
  std::istringstream lines(conll);
  std::string line, previous = "O";
  std::set<std::string> chunks;
  while (std::getline(lines, line)) {
    if (line.empty()) {
      previous = "O";
      continue;
    }
    std::istringstream fields(line);
    std::string word, pos, chunk;
    ASSERT_TRUE(fields >> word >> pos >> chunk) << line;
    if (chunk.rfind("I-", 0) == 0) EXPECT_EQ(previous.substr(2), chunk.substr(2)) << line;
    chunks.insert(chunk);
    previous = chunk;
  }
  EXPECT_EQ(chunks.size(), 6u);
  EXPECT_EQ(SampleChunkText(spec, 1, FieldSplit::kUnlabeled, 5).find('\t'), std::string::npos);
  EXPECT_EQ(Fnv1a(conll), 0x99ca341cfc2fe35fULL) << std::hex << "0x" << Fnv1a(conll);
}

// Ji et al.'s class sequences with misspecification knobs: more states per class, and label noise
// that flips a tenth of the labels and leaves every sequence as it was.
TEST(HmmClassData, LabelNoiseFlipsLabelsOnlyAndStatesAreTheSpecs) {
  HmmClassDataSpec spec = MismatchedHmmClassSpec();
  const HmmClassData clean = SampleHmmClassData(spec, 1);
  spec.label_noise = 0.1;
  const HmmClassData noisy = SampleHmmClassData(spec, 1);
  EXPECT_EQ(noisy.sequences, clean.sequences);
  size_t flipped = 0;
  for (size_t i = 0; i < clean.labels.size(); ++i) flipped += noisy.labels[i] != clean.labels[i];
  EXPECT_GT(flipped, clean.labels.size() * 7 / 100);
  EXPECT_LT(flipped, clean.labels.size() * 13 / 100);
  spec.states = {6, 6};
  const HmmClassData six = SampleHmmClassData(spec, 1);
  for (const HmmParams& truth : six.truth) EXPECT_EQ(truth.num_states(), 6);
}

}  // namespace validity_datagen_test
}  // namespace seqflow

// The validity cases' generators (datasets/anchor_hmm_data.h, two_view_data.h): the assumption
// each case stands on holds in what they write (every state has anchors, the tag dictionary is
// the emission's support; two views drawn apart given the label), determinism, and pinned bytes.
#include <gtest/gtest.h>

#include <algorithm>
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

TEST(TwoViewData, ViewsAreDrawnApartGivenTheLabelAndEachNamesIt) {
  auto read = [](const std::string& conll, auto&& token) {
    std::istringstream lines(conll);
    size_t length = 0;
    for (std::string line; std::getline(lines, line);) {
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
      token(word, surface, label);
    }
  };
  // counts[label][word class][surface], the class whether the word ends in a or e: within a
  // label, the surface must not depend on the word; and with noise 0 every word and every surface
  // occurs under one label only.
  std::map<std::string, std::map<std::string, std::map<std::string, double>>> counts;
  std::map<std::string, std::set<std::string>> labels_of;
  read(SampleTwoViewConll(TwoViewSpec(), 1, 3000), [&](const std::string& word, const std::string& surface,
                                                       const std::string& label) {
    counts[label][word.back() == 'a' || word.back() == 'e' ? "ae" : "iou"][surface] += 1;
    labels_of["w:" + word].insert(label);
    labels_of["s:" + surface].insert(label);
  });
  ASSERT_EQ(counts.size(), 4u);
  for (auto& [label, by_word] : counts) {
    // p(surface | label, word class) is the same for both classes, to sampling noise: compared over
    // the label's 5 most frequent surfaces.
    double ae_total = 0, iou_total = 0;
    for (auto& [s, n] : by_word["ae"]) ae_total += n;
    for (auto& [s, n] : by_word["iou"]) iou_total += n;
    std::vector<std::pair<double, std::string>> frequent;
    for (auto& [s, n] : by_word["ae"]) frequent.push_back({-n, s});
    std::sort(frequent.begin(), frequent.end());
    ASSERT_GE(frequent.size(), 5u) << label;
    ASSERT_GT(iou_total, 0) << label;
    for (size_t i = 0; i < 5; ++i) {
      const std::string& s = frequent[i].second;
      EXPECT_NEAR(by_word["ae"][s] / ae_total, by_word["iou"][s] / iou_total, 0.03) << label << " " << s;
    }
  }
  EXPECT_GT(labels_of.size(), 600u);
  for (const auto& [value, labels] : labels_of) EXPECT_EQ(labels.size(), 1u) << value;
  // With noise the views stop naming the label.
  size_t shared = 0;
  labels_of.clear();
  read(SampleTwoViewConll(TwoViewSpec{.noise = 0.1}, 1, 1000),
       [&](const std::string& word, const std::string&, const std::string& label) { labels_of[word].insert(label); });
  for (const auto& [word, labels] : labels_of) shared += labels.size() > 1 ? 1 : 0;
  EXPECT_GT(shared, 100u);
  EXPECT_EQ(Fnv1a(SampleTwoViewConll(TwoViewSpec(), 1, 100)), 0xdeb5df70bd562063ULL)
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
    if (chunk.rfind("I-", 0) == 0) {
      EXPECT_EQ(previous.substr(2), chunk.substr(2)) << line;
    }
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

// A second-order source: the first two symbols are the first-order source's (same model, same
// stream: the second-order table only takes over from the third state on), the rest differ.
TEST(HmmClassData, SecondOrderSourcesTakeOverFromTheThirdState) {
  HmmClassDataSpec spec = MismatchedHmmClassSpec();
  const HmmClassData first = SampleHmmClassData(spec, 1);
  spec.order = 2;
  const HmmClassData second = SampleHmmClassData(spec, 1);
  ASSERT_EQ(second.sequences.size(), first.sequences.size());
  EXPECT_EQ(second.labels, first.labels);
  size_t later_differ = 0;
  for (size_t i = 0; i < first.sequences.size(); ++i) {
    EXPECT_EQ(second.sequences[i][0], first.sequences[i][0]);
    EXPECT_EQ(second.sequences[i][1], first.sequences[i][1]);
    later_differ += !std::equal(first.sequences[i].begin() + 2, first.sequences[i].end(), second.sequences[i].begin() + 2);
  }
  EXPECT_GT(later_differ, first.sequences.size() / 2);
}

}  // namespace validity_datagen_test
}  // namespace seqflow

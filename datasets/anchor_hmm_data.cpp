#include "datasets/anchor_hmm_data.h"

#include "datasets/sampling.h"
#include "datasets/syllable_words.h"
#include "nodes/common/random.h"

namespace seqflow {
namespace {

constexpr uint64_t kAnchorHmmModelStream = 1000;  // apart from the splits' streams (FieldSplit)

}  // namespace

AnchorHmm BuildAnchorHmm(const AnchorHmmSpec& spec, uint64_t seed) {
  static const std::vector<std::string> kTags = {"NOUN", "VERB", "ADJ", "ADV", "PRON", "DET",
                                                 "ADP",  "NUM",  "CONJ", "PRT", ".",    "X"};
  const int k = static_cast<int>(kTags.size()), v = spec.vocabulary;
  Rng rng = ShardRng(seed, kAnchorHmmModelStream);
  AnchorHmm hmm;
  hmm.state_names = kTags;
  hmm.stay = spec.stay;
  hmm.params.initial = RandomStochasticRows(1, k, rng).row(0).transpose();
  hmm.params.transition = RandomStochasticRows(k, k, rng);
  hmm.params.emission = Eigen::MatrixXd::Zero(k, v);
  hmm.anchor_of.assign(v, -1);
  for (int w = 0; w < v; ++w) {
    hmm.words.push_back(SyllableWord(static_cast<size_t>(w)));
    const double zipf = 1.0 / (w + 1);
    const int home = w % k;
    hmm.params.emission(home, w) = zipf * (0.5 + Uniform01(rng));
    if (Bernoulli(spec.anchor_share, rng)) {
      hmm.anchor_of[w] = home;
      continue;
    }
    const int others = 1 + static_cast<int>(UniformIndex(2, rng));
    for (int i = 0; i < others; ++i) {
      const int h = (home + 1 + static_cast<int>(UniformIndex(static_cast<size_t>(k - 1), rng))) % k;
      hmm.params.emission(h, w) = zipf * (0.5 + Uniform01(rng));
    }
  }
  for (int h = 0; h < k; ++h) hmm.params.emission.row(h) /= hmm.params.emission.row(h).sum();
  return hmm;
}

std::string FormatTagDictionary(const AnchorHmm& hmm) {
  std::string out;
  for (size_t w = 0; w < hmm.words.size(); ++w) {
    const char* separator = "";
    for (int h = 0; h < hmm.params.num_states(); ++h) {
      if (hmm.params.emission(h, static_cast<Eigen::Index>(w)) == 0) continue;
      out += separator + hmm.words[w] + '|' + hmm.state_names[h];
      separator = " ";
    }
    out += '\n';
  }
  return out;
}

}  // namespace seqflow

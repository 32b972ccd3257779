#include "datasets/tagged_hmm.h"

#include "datasets/sampling.h"
#include "datasets/syllable_words.h"
#include "nodes/common/random.h"

namespace seqflow {

std::vector<FieldSentence> SampleTaggedHmm(const TaggedHmm& hmm, uint64_t seed, FieldSplit split, size_t n) {
  const HmmParams& p = hmm.params;
  std::vector<std::vector<double>> emission_cdf;
  for (int h = 0; h < p.num_states(); ++h) {
    const Eigen::VectorXd row = p.emission.row(h).transpose();
    emission_cdf.push_back(CumulativeSums(std::vector<double>(row.data(), row.data() + row.size())));
  }
  Rng rng = ShardRng(seed, static_cast<uint64_t>(split));
  std::vector<FieldSentence> out(n);
  for (FieldSentence& sentence : out) {
    int state = SampleCategorical(p.initial, rng);
    do {
      sentence.fields.push_back(state);
      sentence.words.push_back(hmm.words[SampleFromCdf(emission_cdf[state], rng)]);
      state = SampleCategorical(p.transition.row(state).transpose(), rng);
    } while (Bernoulli(hmm.stay, rng));
  }
  return out;
}

TaggedHmm SmallRandomHmm(int states, int words, double floor, uint64_t seed) {
  constexpr uint64_t kSmallHmmModelStream = 1002;
  Rng rng = ShardRng(seed, kSmallHmmModelStream);
  TaggedHmm hmm;
  hmm.params.initial = RandomStochasticRows(1, states, rng, floor).row(0).transpose();
  hmm.params.transition = RandomStochasticRows(states, states, rng, floor);
  hmm.params.emission = RandomStochasticRows(states, words, rng, floor);
  for (int h = 0; h < states; ++h) hmm.state_names.push_back("S" + std::to_string(h + 1));
  for (int w = 0; w < words; ++w) hmm.words.push_back(SyllableWord(static_cast<size_t>(w)));
  hmm.stay = 0.8;
  return hmm;
}

TaggedHmm SwapSymmetricHmm(int words_per_state, double home_mass) {
  TaggedHmm hmm;
  hmm.params.initial = Eigen::Vector2d(0.5, 0.5);
  hmm.params.transition = (Eigen::Matrix2d() << 0.8, 0.2, 0.2, 0.8).finished();
  const int m = words_per_state;
  hmm.params.emission.resize(2, 2 * m);
  for (int h = 0; h < 2; ++h)
    for (int w = 0; w < 2 * m; ++w) hmm.params.emission(h, w) = (w / m == h ? home_mass : 1 - home_mass) / m;
  hmm.state_names = {"A", "B"};
  for (int w = 0; w < 2 * m; ++w) hmm.words.push_back(SyllableWord(static_cast<size_t>(w)));
  hmm.stay = 0.8;
  return hmm;
}

std::vector<FieldSentence> WithStatesSwapped(std::vector<FieldSentence> sentences) {
  const size_t n = sentences.size();
  for (size_t i = 0; i < n; ++i) {
    FieldSentence swapped = sentences[i];
    for (int32_t& state : swapped.fields) state = 1 - state;
    sentences.push_back(std::move(swapped));
  }
  return sentences;
}

}  // namespace seqflow

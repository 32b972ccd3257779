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

}  // namespace seqflow

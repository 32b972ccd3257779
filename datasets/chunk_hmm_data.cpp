#include "datasets/chunk_hmm_data.h"

#include <array>
#include <vector>

#include "datasets/sampling.h"
#include "datasets/syllable_words.h"
#include "nodes/common/random.h"

namespace seqflow {
namespace {

constexpr int kChunkStates = 6;
constexpr std::array<const char*, kChunkStates> kChunkTags = {"B-NP", "I-NP", "B-VP", "I-VP", "B-PP", "O"};
constexpr std::array<const char*, 4> kPosTags = {"NN", "VB", "IN", "."};
constexpr std::array<int, kChunkStates> kPosOf = {0, 0, 1, 1, 2, 3};
// Rows: from (the last row is the sentence start); columns: to.
constexpr double kNext[kChunkStates + 1][kChunkStates] = {
    {0, .6, .2, 0, .1, .1},   // B-NP
    {0, .4, .3, 0, .15, .15},  // I-NP
    {.4, 0, 0, .3, .2, .1},   // B-VP
    {.5, 0, 0, 0, .3, .2},    // I-VP
    {.9, 0, 0, 0, 0, .1},     // B-PP
    {.5, 0, .3, 0, .2, 0},    // O
    {.6, 0, .1, 0, .2, .1}};  // start

struct ChunkSentence {
  std::vector<int> states, words, pos;
};

class ChunkHmm {
 public:
  explicit ChunkHmm(const ChunkHmmSpec& spec) : spec_(spec) {
    for (const auto& row : kNext) next_cdf_.push_back(CumulativeSums(std::vector<double>(row, row + kChunkStates)));
    // State h's pool: words [h * pool, (h + 1) * pool), its last fifth also emitted by state h + 1.
    const int shared = spec.pool / 5;
    for (int h = 0; h < kChunkStates; ++h) {
      std::vector<int> words;
      for (int i = 0; i < spec.pool; ++i) words.push_back(h * spec.pool + i);
      const int previous = (h + kChunkStates - 1) % kChunkStates;
      for (int i = spec.pool - shared; i < spec.pool; ++i) words.push_back(previous * spec.pool + i);
      std::vector<double> weights;
      for (size_t i = 0; i < words.size(); ++i) weights.push_back(1.0 / static_cast<double>(1 + words[i] % spec.pool));
      pool_.push_back(words);
      pool_cdf_.push_back(CumulativeSums(weights));
    }
  }

  ChunkSentence Sample(Rng& rng) const {
    ChunkSentence s;
    int state = static_cast<int>(SampleFromCdf(next_cdf_[kChunkStates], rng));
    do {
      s.states.push_back(state);
      s.words.push_back(pool_[state][SampleFromCdf(pool_cdf_[state], rng)]);
      s.pos.push_back(Bernoulli(spec_.pos_accuracy, rng) ? kPosOf[state]
                                                         : static_cast<int>(UniformIndex(kPosTags.size(), rng)));
      state = static_cast<int>(SampleFromCdf(next_cdf_[state], rng));
    } while (Bernoulli(14.0 / 15.0, rng));
    return s;
  }

 private:
  ChunkHmmSpec spec_;
  std::vector<std::vector<double>> next_cdf_;
  std::vector<std::vector<int>> pool_;
  std::vector<std::vector<double>> pool_cdf_;
};

template <class Format>
std::string SampleChunks(const ChunkHmmSpec& spec, uint64_t seed, FieldSplit split, size_t n, const Format& format) {
  const ChunkHmm hmm(spec);
  Rng rng = ShardRng(seed, static_cast<uint64_t>(split));
  std::string out;
  for (size_t i = 0; i < n; ++i) format(hmm.Sample(rng), out);
  return out;
}

}  // namespace

std::string SampleChunkConll(const ChunkHmmSpec& spec, uint64_t seed, FieldSplit split, size_t n) {
  return SampleChunks(spec, seed, split, n, [](const ChunkSentence& s, std::string& out) {
    for (size_t t = 0; t < s.words.size(); ++t)
      out += SyllableWord(static_cast<size_t>(s.words[t])) + '\t' + kPosTags[s.pos[t]] + '\t' +
             kChunkTags[s.states[t]] + '\n';
    out += '\n';
  });
}

std::string SampleChunkText(const ChunkHmmSpec& spec, uint64_t seed, FieldSplit split, size_t n) {
  return SampleChunks(spec, seed, split, n, [](const ChunkSentence& s, std::string& out) {
    for (size_t t = 0; t < s.words.size(); ++t) out += (t ? " " : "") + SyllableWord(static_cast<size_t>(s.words[t]));
    out += '\n';
  });
}

}  // namespace seqflow

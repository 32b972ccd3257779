#include "datasets/two_view_data.h"

#include <Eigen/Dense>
#include <array>
#include <cctype>
#include <vector>

#include "datasets/field_corpus.h"
#include "datasets/sampling.h"
#include "datasets/syllable_words.h"
#include "nodes/common/random.h"

namespace seqflow {
namespace {

constexpr uint64_t kTwoViewModelStream = 1001;
constexpr int kLabels = 4;
constexpr std::array<const char*, kLabels> kLabelNames = {"PER", "LOC", "ORG", "O"};

// Rows: label; columns: a view's `values` values, each with its Zipf(1) weight times 1 at home
// (value mod 4), `noise` elsewhere.
std::vector<std::vector<double>> HomeEmissionCdfs(int values, double noise) {
  std::vector<std::vector<double>> cdfs;
  for (int h = 0; h < kLabels; ++h) {
    std::vector<double> weights(static_cast<size_t>(values));
    for (int v = 0; v < values; ++v) weights[v] = (v % kLabels == h ? 1.0 : noise) / (v + 1);
    cdfs.push_back(CumulativeSums(weights));
  }
  return cdfs;
}

// Surface tokens: upper-case syllable words from past the word view's range, so no surface token
// is spelled as a word.
std::string SurfaceToken(size_t s) {
  std::string token = SyllableWord(s + 100000);
  for (char& c : token) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return token;
}

}  // namespace

std::string SampleTwoViewConll(const TwoViewSpec& spec, uint64_t seed, size_t sentences) {
  Rng model_rng = ShardRng(seed, kTwoViewModelStream);
  const Eigen::VectorXd initial = RandomStochasticRows(1, kLabels, model_rng).row(0).transpose();
  const Eigen::MatrixXd transition =
      0.5 * RandomStochasticRows(kLabels, kLabels, model_rng) + 0.5 * Eigen::MatrixXd::Identity(kLabels, kLabels);
  const auto word_cdfs = HomeEmissionCdfs(spec.words, spec.noise);
  const auto surface_cdfs = HomeEmissionCdfs(spec.surfaces, spec.noise);
  Rng rng = ShardRng(seed, static_cast<uint64_t>(FieldSplit::kLabeled));
  std::string out;
  for (size_t n = 0; n < sentences; ++n) {
    const size_t length = 10 + UniformIndex(31, rng);
    int label = SampleCategorical(initial, rng);
    for (size_t t = 0; t < length; ++t) {
      if (t > 0) label = SampleCategorical(transition.row(label).transpose(), rng);
      const size_t word = SampleFromCdf(word_cdfs[label], rng);
      const size_t surface = SampleFromCdf(surface_cdfs[label], rng);
      out += SyllableWord(word) + '\t' + SurfaceToken(surface) + '\t' + kLabelNames[label] + '\n';
    }
    out += '\n';
  }
  return out;
}

}  // namespace seqflow

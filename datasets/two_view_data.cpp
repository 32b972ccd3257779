#include "datasets/two_view_data.h"

#include <Eigen/Dense>
#include <array>
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
constexpr std::array<const char*, 10> kSurfaces = {".", "1999", "12", "J.", "ABC", "ab-cd", "Abc.", "Abc", "aBc", "abc"};

// Rows: label; columns: the view's values, each with weight (strength at home, 1 elsewhere) times
// its frequency weight.
std::vector<std::vector<double>> HomeEmissionCdfs(const std::vector<double>& frequency, double strength) {
  std::vector<std::vector<double>> cdfs;
  for (int h = 0; h < kLabels; ++h) {
    std::vector<double> weights(frequency.size());
    for (size_t v = 0; v < frequency.size(); ++v)
      weights[v] = frequency[v] * (static_cast<int>(v % kLabels) == h ? strength : 1.0);
    cdfs.push_back(CumulativeSums(weights));
  }
  return cdfs;
}

}  // namespace

std::string SampleTwoViewConll(const TwoViewSpec& spec, uint64_t seed, size_t sentences) {
  Rng model_rng = ShardRng(seed, kTwoViewModelStream);
  const Eigen::VectorXd initial = RandomStochasticRows(1, kLabels, model_rng).row(0).transpose();
  const Eigen::MatrixXd transition =
      0.5 * RandomStochasticRows(kLabels, kLabels, model_rng) + 0.5 * Eigen::MatrixXd::Identity(kLabels, kLabels);
  std::vector<double> zipf(static_cast<size_t>(spec.words));
  for (size_t w = 0; w < zipf.size(); ++w) zipf[w] = 1.0 / static_cast<double>(w + 1);
  const auto word_cdfs = HomeEmissionCdfs(zipf, spec.word_strength);
  const auto surface_cdfs = HomeEmissionCdfs(std::vector<double>(kSurfaces.size(), 1.0), spec.surface_strength);
  Rng rng = ShardRng(seed, static_cast<uint64_t>(FieldSplit::kLabeled));
  std::string out;
  for (size_t n = 0; n < sentences; ++n) {
    const size_t length = 10 + UniformIndex(31, rng);
    int label = SampleCategorical(initial, rng);
    for (size_t t = 0; t < length; ++t) {
      if (t > 0) label = SampleCategorical(transition.row(label).transpose(), rng);
      const size_t word = SampleFromCdf(word_cdfs[label], rng);
      const size_t surface = SampleFromCdf(surface_cdfs[label], rng);
      out += SyllableWord(word) + '\t' + kSurfaces[surface] + '\t' + kLabelNames[label] + '\n';
    }
    out += '\n';
  }
  return out;
}

}  // namespace seqflow

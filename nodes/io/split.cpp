#include "nodes/io/split.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <string>

namespace seqflow {

namespace {

// Exactly uniform in [0, bound) by rejection, so the result depends only on the engine's output.
uint64_t UniformBelow(std::mt19937_64& rng, uint64_t bound) {
  const uint64_t max = std::mt19937_64::max();
  const uint64_t limit = max - max % bound;  // a multiple of bound
  uint64_t x;
  do {
    x = rng();
  } while (x >= limit);
  return x % bound;
}

Status CheckRange(const SplitOptions& o, size_t n) {
  std::string size = " the corpus (" + std::to_string(n) + " sentences)";
  if (o.skip < 0 || o.count < 0) return Status::Invalid("split: skip and count must be >= 0");
  if (static_cast<uint64_t>(o.skip) > n)
    return Status::Invalid("split: skip " + std::to_string(o.skip) + " is beyond" + size);
  if (static_cast<uint64_t>(o.skip) + static_cast<uint64_t>(o.count) > n)
    return Status::Invalid("split: skip " + std::to_string(o.skip) + " + count " + std::to_string(o.count) +
                           " exceeds" + size);
  if (o.count == 0 && static_cast<uint64_t>(o.skip) == n)
    return Status::Invalid("split: skip " + std::to_string(o.skip) + " leaves nothing of" + size);
  return Status::Ok();
}

}  // namespace

std::vector<size_t> SeededPermutation(size_t n, uint64_t seed) {
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::mt19937_64 rng(seed);
  for (size_t i = n; i > 1; --i) std::swap(order[i - 1], order[UniformBelow(rng, i)]);
  return order;
}

Result<Corpus> SplitCorpus(const Corpus& corpus, const SplitOptions& options) {
  const size_t n = corpus.sentences.size();
  SEQFLOW_RETURN_IF_ERROR(CheckRange(options, n));
  std::vector<size_t> order(n);
  if (options.shuffle) {
    order = SeededPermutation(n, options.seed);
  } else {
    std::iota(order.begin(), order.end(), size_t{0});
  }
  size_t begin = static_cast<size_t>(options.skip);
  size_t end = options.count == 0 ? n : begin + static_cast<size_t>(options.count);
  std::vector<size_t> chosen(order.begin() + begin, order.begin() + end);
  std::sort(chosen.begin(), chosen.end());

  Corpus part;
  part.columns = corpus.columns;
  part.source = corpus.source;
  if (!options.drop_labels) {
    part.label_names = corpus.label_names;
    part.encoding = corpus.encoding;
  }
  part.sentences.reserve(chosen.size());
  for (size_t i : chosen) {
    part.sentences.push_back(corpus.sentences[i]);
    if (options.drop_labels) part.sentences.back().labels.clear();
  }
  return part;
}

}  // namespace seqflow

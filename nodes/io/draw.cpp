#include "nodes/io/draw.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "nodes/io/split.h"

namespace seqflow {

namespace {

std::vector<size_t> EligibleSentences(const Corpus& corpus, const DrawOptions& o) {
  std::vector<size_t> eligible;
  for (size_t i = 0; i < corpus.sentences.size(); ++i) {
    const auto length = static_cast<int64_t>(corpus.sentences[i].size());
    if (length >= o.min_length && length <= o.max_length) eligible.push_back(i);
  }
  return eligible;
}

// Label ids [0, K) that none of `chosen` carries.
std::vector<int32_t> MissingLabels(const Corpus& corpus, const std::vector<size_t>& chosen) {
  std::vector<bool> seen(corpus.label_names.size(), false);
  for (size_t i : chosen)
    for (int32_t y : corpus.sentences[i].labels) seen[static_cast<size_t>(y)] = true;
  std::vector<int32_t> missing;
  for (size_t k = 0; k < seen.size(); ++k)
    if (!seen[k]) missing.push_back(static_cast<int32_t>(k));
  return missing;
}

// A distinct seed for the r-th labeled draw, so that redraws do not repeat the holdout's order.
uint64_t RedrawSeed(uint64_t seed, int64_t r) { return seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(r) + 1; }

Result<std::vector<size_t>> DrawLabeled(const Corpus& corpus, const std::vector<size_t>& rest, const DrawOptions& o) {
  std::vector<int32_t> missing;
  for (int64_t r = 0; r <= o.max_redraws; ++r) {
    const std::vector<size_t> order = SeededPermutation(rest.size(), RedrawSeed(o.seed, r));
    std::vector<size_t> chosen;
    for (int64_t k = 0; k < o.labeled; ++k) chosen.push_back(rest[order[static_cast<size_t>(k)]]);
    missing = MissingLabels(corpus, chosen);
    if (!o.every_label || missing.empty()) return chosen;
  }
  std::string names;
  for (int32_t k : missing) names += (names.empty() ? "" : ", ") + corpus.label_names[static_cast<size_t>(k)];
  return Status::Invalid(
      fmt::format("draw: no draw of {} labeled sentences from {} in {} tries holds every label "
                  "(last one lacked {})",
                  o.labeled, corpus.source, o.max_redraws + 1, names));
}

Corpus Part(const Corpus& corpus, std::vector<size_t> chosen, bool keep_labels) {
  std::sort(chosen.begin(), chosen.end());
  Corpus part;
  part.columns = corpus.columns;
  part.source = corpus.source;
  if (keep_labels) {
    part.label_names = corpus.label_names;
    part.encoding = corpus.encoding;
  }
  for (size_t i : chosen) {
    part.sentences.push_back(corpus.sentences[i]);
    if (!keep_labels) part.sentences.back().labels.clear();
  }
  return part;
}

}  // namespace

const char* DrawPartName(DrawPart part) {
  switch (part) {
    case DrawPart::kLabeled:
      return "labeled";
    case DrawPart::kUnlabeled:
      return "unlabeled";
    case DrawPart::kHoldout:
      return "holdout";
  }
  return "?";
}

Result<Corpus> DrawCorpus(const Corpus& corpus, const DrawOptions& o) {
  if (!corpus.labeled()) return Status::Invalid("draw: " + corpus.source + " is unlabeled");
  if (o.min_length > o.max_length)
    return Status::Invalid(fmt::format("draw: min_length {} exceeds max_length {}", o.min_length, o.max_length));
  const std::vector<size_t> eligible = EligibleSentences(corpus, o);
  const int64_t needed = o.holdout + o.labeled + o.unlabeled;
  if (needed > static_cast<int64_t>(eligible.size()))
    return Status::Invalid(
        fmt::format("draw: {} holdout + {} labeled + {} unlabeled sentences, but {} has only {} of "
                    "{} to {} tokens",
                    o.holdout, o.labeled, o.unlabeled, corpus.source, eligible.size(), o.min_length, o.max_length));
  const std::vector<size_t> order = SeededPermutation(eligible.size(), o.seed);
  std::vector<size_t> holdout, rest;
  for (size_t k = 0; k < order.size(); ++k)
    (static_cast<int64_t>(k) < o.holdout ? holdout : rest).push_back(eligible[order[k]]);
  if (o.part == DrawPart::kHoldout) return Part(corpus, holdout, true);

  SEQFLOW_ASSIGN_OR_RETURN(std::vector<size_t> labeled, DrawLabeled(corpus, rest, o));
  if (o.part == DrawPart::kLabeled) return Part(corpus, labeled, true);

  std::vector<size_t> sorted_labeled = labeled;
  std::sort(sorted_labeled.begin(), sorted_labeled.end());
  std::vector<size_t> pool;
  for (size_t i : rest) {
    if (o.unlabeled > 0 && static_cast<int64_t>(pool.size()) == o.unlabeled) break;
    if (!std::binary_search(sorted_labeled.begin(), sorted_labeled.end(), i)) pool.push_back(i);
  }
  return Part(corpus, pool, false);
}

}  // namespace seqflow

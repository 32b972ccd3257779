// Builders for evaluator tests: a gold Corpus and Predictions from tag strings.
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "nodes/io/corpus.h"
#include "nodes/io/predictions.h"

namespace seqflow::testutil {

using TagSeqs = std::vector<std::vector<std::string>>;

// Label ids follow `names` (default: sorted distinct tags); words are "w".
inline std::shared_ptr<Corpus> GoldCorpus(const TagSeqs& tags, TagEncoding encoding,
                                          std::vector<std::string> names = {}) {
  auto c = std::make_shared<Corpus>();
  c->columns = {"word"};
  c->encoding = encoding;
  if (names.empty()) {
    for (const auto& seq : tags) names.insert(names.end(), seq.begin(), seq.end());
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
  }
  c->label_names = names;
  for (const auto& seq : tags) {
    Sentence s;
    s.cols = {std::vector<std::string>(seq.size(), "w")};
    for (const auto& t : seq) s.labels.push_back(c->LabelId(t));
    c->sentences.push_back(std::move(s));
  }
  return c;
}

// Label ids follow `names` (default: distinct tags in reverse sorted order, so that predicted
// ids never equal the gold ids by accident).
inline std::shared_ptr<Predictions> PredictionsOf(const TagSeqs& tags, TagEncoding encoding,
                                                  std::vector<std::string> names = {}) {
  auto p = std::make_shared<Predictions>();
  p->encoding = encoding;
  if (names.empty()) {
    for (const auto& seq : tags) names.insert(names.end(), seq.begin(), seq.end());
    std::sort(names.rbegin(), names.rend());
    names.erase(std::unique(names.begin(), names.end()), names.end());
  }
  p->label_names = names;
  for (const auto& seq : tags) {
    std::vector<int32_t> ids;
    for (const auto& t : seq)
      ids.push_back(static_cast<int32_t>(std::find(names.begin(), names.end(), t) - names.begin()));
    p->labels.push_back(std::move(ids));
  }
  return p;
}

}  // namespace seqflow::testutil

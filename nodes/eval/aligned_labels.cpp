#include "nodes/eval/aligned_labels.h"

#include <unordered_map>

namespace seqflow {

namespace {

// predicted id -> shared id; appends names the gold does not have.
std::vector<int32_t> MapPredictedIds(const std::vector<std::string>& predicted_names, std::vector<std::string>* names) {
  std::unordered_map<std::string, int32_t> index;
  for (size_t i = 0; i < names->size(); ++i) index.emplace((*names)[i], static_cast<int32_t>(i));
  std::vector<int32_t> map;
  for (const auto& name : predicted_names) {
    auto [it, inserted] = index.try_emplace(name, static_cast<int32_t>(names->size()));
    if (inserted) names->push_back(name);
    map.push_back(it->second);
  }
  return map;
}

Status CheckShape(const Corpus& gold, const Predictions& predicted) {
  if (!gold.labeled()) return Status::Invalid("the gold corpus has no labels (" + gold.source + ")");
  if (predicted.labels.size() != gold.sentences.size())
    return Status::Invalid("predictions cover " + std::to_string(predicted.labels.size()) +
                           " sentences, the gold corpus has " + std::to_string(gold.sentences.size()));
  for (size_t s = 0; s < gold.sentences.size(); ++s) {
    size_t want = gold.sentences[s].size(), got = predicted.labels[s].size();
    if (got != want)
      return Status::Invalid("sentence " + std::to_string(s + 1) + ": " + std::to_string(got) +
                             " predicted labels for " + std::to_string(want) + " gold tokens");
    if (gold.sentences[s].labels.size() != want)
      return Status::Invalid("sentence " + std::to_string(s + 1) + " of the gold corpus has no labels");
  }
  return Status::Ok();
}

}  // namespace

Result<AlignedLabels> AlignLabels(const Corpus& gold, const Predictions& predicted) {
  SEQFLOW_RETURN_IF_ERROR(CheckShape(gold, predicted));
  AlignedLabels out;
  out.names = gold.label_names;
  std::vector<int32_t> map = MapPredictedIds(predicted.label_names, &out.names);
  out.predicted.reserve(predicted.labels.size());
  for (size_t s = 0; s < predicted.labels.size(); ++s) {
    std::vector<int32_t> ids;
    ids.reserve(predicted.labels[s].size());
    for (size_t t = 0; t < predicted.labels[s].size(); ++t) {
      int32_t id = predicted.labels[s][t];
      if (id < 0 || static_cast<size_t>(id) >= map.size())
        return Status::Invalid("sentence " + std::to_string(s + 1) + ", token " + std::to_string(t + 1) +
                               ": predicted label id " + std::to_string(id) + " has no name (" +
                               std::to_string(map.size()) + " predicted labels)");
      ids.push_back(map[id]);
    }
    out.predicted.push_back(std::move(ids));
    out.gold.push_back(gold.sentences[s].labels);
  }
  return out;
}

TokenScores ScoreTokens(const AlignedLabels& labels) {
  TokenScores scores;
  for (size_t s = 0; s < labels.gold.size(); ++s) {
    int64_t right = 0;
    for (size_t t = 0; t < labels.gold[s].size(); ++t) right += labels.gold[s][t] == labels.predicted[s][t];
    scores.tokens += static_cast<int64_t>(labels.gold[s].size());
    scores.correct_tokens += right;
    scores.sentences += 1;
    scores.correct_sentences += right == static_cast<int64_t>(labels.gold[s].size());
  }
  return scores;
}

}  // namespace seqflow

#include "nodes/eval/sentence_stats.h"

#include "engine/base/hash.h"

namespace seqflow {

std::string GoldFingerprint(const Corpus& gold) {
  Hasher hasher;
  hasher.AddU64(gold.sentences.size());
  for (const Sentence& sentence : gold.sentences) {
    hasher.AddU64(sentence.size());
    for (size_t t = 0; t < sentence.size(); ++t) {
      hasher.Add(sentence.words()[t]);
      hasher.Add(t < sentence.labels.size() ? gold.label_names[sentence.labels[t]] : std::string());
    }
  }
  return hasher.HexDigest();
}

std::vector<SentenceStats> TokenSentenceStats(const AlignedLabels& labels) {
  std::vector<SentenceStats> out;
  for (size_t s = 0; s < labels.gold.size(); ++s) {
    SentenceStats stats;
    stats.tokens = static_cast<int64_t>(labels.gold[s].size());
    for (size_t t = 0; t < labels.gold[s].size(); ++t)
      stats.correct_tokens += labels.gold[s][t] == labels.predicted[s][t];
    out.push_back(stats);
  }
  return out;
}

std::vector<SentenceStats> SegmentSentenceStats(const SegmentScores& scores, const AlignedLabels& labels) {
  std::vector<SentenceStats> out = TokenSentenceStats(labels);
  for (size_t s = 0; s < out.size(); ++s) {
    out[s].correct = scores.per_sentence[s].correct;
    out[s].guessed = scores.per_sentence[s].predicted;
    out[s].gold = scores.per_sentence[s].gold;
  }
  return out;
}

}  // namespace seqflow

// FeatureSet serialization: the dictionary, then the CSR sentences and the labels
// (labeled_features.h), then the label names and encoding.
#include <string>

#include "nodes/features/feature_templates.h"
#include "nodes/features/labeled_features.h"

namespace seqflow {

namespace {

[[noreturn]] void Corrupt(const std::string& what) { throw StatusError(Status::Corruption("FeatureSet: " + what)); }

void CheckSentence(const SentenceFeatures& s, int32_t num_attributes) {
  if (s.offsets.empty() || s.offsets.front() != 0 || static_cast<size_t>(s.offsets.back()) != s.ids.size())
    Corrupt("bad sentence offsets");
  for (size_t t = 1; t < s.offsets.size(); ++t)
    if (s.offsets[t] < s.offsets[t - 1]) Corrupt("decreasing sentence offsets");
  for (int32_t id : s.ids)
    if (id < 0 || id >= num_attributes) Corrupt("attribute id out of range");
}

}  // namespace

size_t NumTokens(const std::vector<SentenceFeatures>& sentences) {
  size_t n = 0;
  for (const SentenceFeatures& s : sentences) n += static_cast<size_t>(s.size());
  return n;
}

void SaveFeatureSentences(ByteWriter& w, const std::vector<SentenceFeatures>& sentences,
                          const std::vector<std::vector<int32_t>>& labels) {
  w.U64(sentences.size());
  for (const SentenceFeatures& s : sentences) {
    w.I32s(s.offsets.data(), s.offsets.size());
    w.I32s(s.ids.data(), s.ids.size());
  }
  w.U64(labels.size());
  for (const auto& y : labels) w.I32s(y.data(), y.size());
}

void LoadFeatureSentences(ByteReader& r, int32_t num_attributes, std::vector<SentenceFeatures>* sentences,
                          std::vector<std::vector<int32_t>>* labels) {
  sentences->resize(r.Count(2 * sizeof(uint64_t)));
  for (SentenceFeatures& s : *sentences) {
    s.offsets = r.I32s();
    s.ids = r.I32s();
    CheckSentence(s, num_attributes);
  }
  labels->resize(r.Count(sizeof(uint64_t)));
  for (auto& y : *labels) y = r.I32s();
}

void CheckFeatureLabels(const std::vector<SentenceFeatures>& sentences,
                        const std::vector<std::vector<int32_t>>& labels, size_t num_labels) {
  if (labels.empty()) return;
  if (labels.size() != sentences.size()) Corrupt("label and sentence counts differ");
  for (size_t i = 0; i < labels.size(); ++i) {
    if (static_cast<int32_t>(labels[i].size()) != sentences[i].size()) Corrupt("label count of a sentence");
    for (int32_t y : labels[i])
      if (y < 0 || static_cast<size_t>(y) >= num_labels) Corrupt("label id out of range");
  }
}

size_t FeatureSet::num_tokens() const { return NumTokens(sentences); }

void FeatureSet::Save(ByteWriter& w) const {
  dictionary->Save(w);
  SaveFeatureSentences(w, sentences, labels);
  w.Strs(label_names);
  w.U8(static_cast<uint8_t>(encoding));
}

std::shared_ptr<const FeatureSet> FeatureSet::Load(ByteReader& r) {
  auto set = std::make_shared<FeatureSet>();
  set->dictionary = FeatureDictionary::Load(r);
  LoadFeatureSentences(r, set->dictionary->num_attributes(), &set->sentences, &set->labels);
  set->label_names = r.Strs();
  const uint8_t encoding = r.U8();
  if (encoding > static_cast<uint8_t>(TagEncoding::kRuns)) Corrupt("bad tag encoding");
  set->encoding = static_cast<TagEncoding>(encoding);
  r.ExpectEnd();
  CheckFeatureLabels(set->sentences, set->labels, set->label_names.size());
  return set;
}

std::string FeatureSet::Describe() const {
  return std::to_string(sentences.size()) + " sentences, " + std::to_string(num_tokens()) + " tokens, " +
         std::to_string(dictionary->num_attributes()) + " attributes from " +
         std::to_string(dictionary->templates().size()) + " templates";
}

}  // namespace seqflow

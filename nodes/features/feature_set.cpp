// FeatureSet serialization: the dictionary, then the CSR sentences, then the labels.
#include <string>

#include "nodes/features/feature_templates.h"

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

void CheckLabels(const FeatureSet& set) {
  if (set.labels.empty()) return;
  if (set.labels.size() != set.sentences.size()) Corrupt("label and sentence counts differ");
  for (size_t i = 0; i < set.labels.size(); ++i) {
    if (static_cast<int32_t>(set.labels[i].size()) != set.sentences[i].size()) Corrupt("label count of a sentence");
    for (int32_t y : set.labels[i])
      if (y < 0 || static_cast<size_t>(y) >= set.label_names.size()) Corrupt("label id out of range");
  }
}

}  // namespace

size_t FeatureSet::num_tokens() const {
  size_t n = 0;
  for (const SentenceFeatures& s : sentences) n += static_cast<size_t>(s.size());
  return n;
}

void FeatureSet::Save(ByteWriter& w) const {
  dictionary->Save(w);
  w.U64(sentences.size());
  for (const SentenceFeatures& s : sentences) {
    w.I32s(s.offsets.data(), s.offsets.size());
    w.I32s(s.ids.data(), s.ids.size());
  }
  w.U64(labels.size());
  for (const auto& y : labels) w.I32s(y.data(), y.size());
  w.Strs(label_names);
  w.U8(static_cast<uint8_t>(encoding));
}

std::shared_ptr<const FeatureSet> FeatureSet::Load(ByteReader& r) {
  auto set = std::make_shared<FeatureSet>();
  set->dictionary = FeatureDictionary::Load(r);
  set->sentences.resize(r.Count(2 * sizeof(uint64_t)));
  for (SentenceFeatures& s : set->sentences) {
    s.offsets = r.I32s();
    s.ids = r.I32s();
    CheckSentence(s, set->dictionary->num_attributes());
  }
  set->labels.resize(r.Count(sizeof(uint64_t)));
  for (auto& y : set->labels) y = r.I32s();
  set->label_names = r.Strs();
  const uint8_t encoding = r.U8();
  if (encoding > static_cast<uint8_t>(TagEncoding::kRuns)) Corrupt("bad tag encoding");
  set->encoding = static_cast<TagEncoding>(encoding);
  r.ExpectEnd();
  CheckLabels(*set);
  return set;
}

std::string FeatureSet::Describe() const {
  return std::to_string(sentences.size()) + " sentences, " + std::to_string(num_tokens()) + " tokens, " +
         std::to_string(dictionary->num_attributes()) + " attributes from " +
         std::to_string(dictionary->templates().size()) + " templates";
}

}  // namespace seqflow

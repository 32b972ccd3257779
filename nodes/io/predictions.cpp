#include "nodes/io/predictions.h"

namespace seqflow {

namespace {

[[noreturn]] void CorruptPredictions(const std::string& what) { throw StatusError(Status::Corruption("Predictions: " + what)); }

// Ids name a label; marginals, when present, are [T x K] for every sentence.
void CheckShape(const Predictions& p) {
  const size_t k = p.label_names.size();
  for (const auto& seq : p.labels)
    for (int32_t id : seq)
      if (id < 0 || static_cast<size_t>(id) >= k) CorruptPredictions("label id " + std::to_string(id) + " out of range");
  if (p.marginals.empty()) return;
  if (p.marginals.size() != p.labels.size()) CorruptPredictions("marginals and labels cover different sentences");
  for (size_t s = 0; s < p.labels.size(); ++s)
    if (p.marginals[s].size() != p.labels[s].size() * k)
      CorruptPredictions("marginals of sentence " + std::to_string(s + 1) + " are not T x K");
}

}  // namespace

void Predictions::Save(ByteWriter& w) const {
  w.Strs(label_names);
  w.U8(static_cast<uint8_t>(encoding));
  w.U64(labels.size());
  for (const auto& seq : labels) w.I32s(seq.data(), seq.size());
  w.U64(marginals.size());
  for (const auto& m : marginals) w.F64s(m.data(), m.size());
}

std::shared_ptr<const Predictions> Predictions::Load(ByteReader& r) {
  auto p = std::make_shared<Predictions>();
  p->label_names = r.Strs();
  uint8_t enc = r.U8();
  if (enc > static_cast<uint8_t>(TagEncoding::kRuns)) CorruptPredictions("bad tag encoding " + std::to_string(enc));
  p->encoding = static_cast<TagEncoding>(enc);
  size_t n = r.Count(sizeof(uint64_t));
  p->labels.reserve(n);
  for (size_t i = 0; i < n; ++i) p->labels.push_back(r.I32s());
  size_t m = r.Count(sizeof(uint64_t));
  p->marginals.reserve(m);
  for (size_t i = 0; i < m; ++i) p->marginals.push_back(r.F64s());
  r.ExpectEnd();
  CheckShape(*p);
  return p;
}

std::string Predictions::Describe() const {
  size_t tokens = 0;
  for (const auto& seq : labels) tokens += seq.size();
  return std::to_string(labels.size()) + " sentences, " + std::to_string(tokens) + " tokens, " +
         std::to_string(label_names.size()) + " labels" + (marginals.empty() ? "" : ", with marginals");
}

}  // namespace seqflow

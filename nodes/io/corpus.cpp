#include "nodes/io/corpus.h"

namespace seqflow {

const char* TagEncodingName(TagEncoding e) {
  switch (e) {
    case TagEncoding::kNone:
      return "none";
    case TagEncoding::kIob1:
      return "iob1";
    case TagEncoding::kIob2:
      return "iob2";
    case TagEncoding::kRuns:
      return "runs";
  }
  return "?";
}

size_t Corpus::num_tokens() const {
  size_t n = 0;
  for (const auto& s : sentences) n += s.size();
  return n;
}

int Corpus::ColumnIndex(std::string_view name) const {
  for (size_t i = 0; i < columns.size(); ++i)
    if (columns[i] == name) return static_cast<int>(i);
  return -1;
}

int32_t Corpus::LabelId(std::string_view name) const {
  for (size_t i = 0; i < label_names.size(); ++i)
    if (label_names[i] == name) return static_cast<int32_t>(i);
  return -1;
}

void Corpus::Save(ByteWriter& w) const {
  w.Strs(columns);
  w.Strs(label_names);
  w.U8(static_cast<uint8_t>(encoding));
  w.Str(source);
  w.U64(sentences.size());
  for (const auto& s : sentences) {
    w.U64(s.size());
    for (const auto& col : s.cols)
      for (const auto& token : col) w.Str(token);
    w.I32s(s.labels.data(), s.labels.size());
  }
}

namespace {

[[noreturn]] void Corrupt(const std::string& what) { throw StatusError(Status::Corruption("Corpus: " + what)); }

Sentence LoadSentence(ByteReader& r, size_t num_columns, size_t num_labels) {
  Sentence s;
  // Each token costs at least one 8-byte length prefix per column.
  size_t n = r.Count(sizeof(uint64_t) * num_columns);
  s.cols.resize(num_columns);
  for (auto& col : s.cols) {
    col.reserve(n);
    for (size_t t = 0; t < n; ++t) col.push_back(r.Str());
  }
  s.labels = r.I32s();
  if (!s.labels.empty() && s.labels.size() != n) Corrupt("labels and tokens differ in length");
  for (int32_t id : s.labels)
    if (id < 0 || static_cast<size_t>(id) >= num_labels) Corrupt("label id " + std::to_string(id) + " out of range");
  return s;
}

}  // namespace

std::shared_ptr<const Corpus> Corpus::Load(ByteReader& r) {
  auto c = std::make_shared<Corpus>();
  c->columns = r.Strs();
  if (c->columns.empty() || c->columns[0] != "word") Corrupt("column 0 is not 'word'");
  c->label_names = r.Strs();
  uint8_t enc = r.U8();
  if (enc > static_cast<uint8_t>(TagEncoding::kRuns)) Corrupt("bad tag encoding " + std::to_string(enc));
  c->encoding = static_cast<TagEncoding>(enc);
  c->source = r.Str();
  size_t n = r.Count(2 * sizeof(uint64_t));
  c->sentences.reserve(n);
  for (size_t i = 0; i < n; ++i) c->sentences.push_back(LoadSentence(r, c->columns.size(), c->label_names.size()));
  r.ExpectEnd();
  return c;
}

std::string Corpus::Describe() const {
  std::string out = std::to_string(sentences.size()) + " sentences, " + std::to_string(num_tokens()) + " tokens";
  if (labeled()) out += ", " + std::to_string(label_names.size()) + " labels (" + TagEncodingName(encoding) + ")";
  if (!source.empty()) out += " from " + source;
  return out;
}

}  // namespace seqflow

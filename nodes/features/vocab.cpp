#include "nodes/features/vocab.h"

#include "nodes/features/unknown_words.h"
#include "nodes/io/text_encoding.h"

namespace seqflow {

const char* UnknownSchemeName(UnknownScheme s) { return s == UnknownScheme::kSingle ? "single" : "shape"; }

Vocab::Vocab(std::vector<std::string> words, UnknownScheme scheme, bool lowercase)
    : words_(std::move(words)), unknown_classes_(UnknownClassNames(scheme)), scheme_(scheme), lowercase_(lowercase) {
  for (const std::string& w : words_) index_.Insert(w);
}

int32_t Vocab::Id(std::string_view word) const {
  const int32_t id = lowercase_ ? index_.Find(LowercaseUtf8(word)) : index_.Find(word);
  if (id >= 0) return id;
  return num_known() + UnknownClassIndex(word, scheme_);
}

const std::string& Vocab::Name(int32_t id) const {
  if (id < 0 || id >= size()) throw StatusError(Status::Internal("vocab id " + std::to_string(id) + " out of range"));
  return id < num_known() ? words_[id] : unknown_classes_[id - num_known()];
}

std::vector<int32_t> Vocab::Ids(const std::vector<std::string>& words) const {
  std::vector<int32_t> ids;
  ids.reserve(words.size());
  for (const auto& w : words) ids.push_back(Id(w));
  return ids;
}

void Vocab::Save(ByteWriter& w) const {
  w.U8(static_cast<uint8_t>(scheme_));
  w.U8(lowercase_ ? 1 : 0);
  w.Strs(words_);
  w.Strs(unknown_classes_);
}

std::shared_ptr<const Vocab> Vocab::Load(ByteReader& r) {
  uint8_t scheme = r.U8();
  uint8_t lowercase = r.U8();
  if (scheme > static_cast<uint8_t>(UnknownScheme::kShape) || lowercase > 1)
    throw StatusError(Status::Corruption("Vocab: bad header"));
  std::vector<std::string> words = r.Strs();
  std::vector<std::string> classes = r.Strs();
  r.ExpectEnd();
  auto vocab = std::make_shared<Vocab>(std::move(words), static_cast<UnknownScheme>(scheme), lowercase == 1);
  if (static_cast<size_t>(vocab->index_.size()) != vocab->words_.size()) throw StatusError(Status::Corruption("Vocab: duplicate words"));
  // Ids of unknown words depend on this build's class list; an older list would shift them.
  if (classes != vocab->unknown_classes_)
    throw StatusError(Status::Corruption("Vocab: unknown-word classes differ from this build's"));
  return vocab;
}

std::string Vocab::Describe() const {
  return std::to_string(words_.size()) + " words + " + std::to_string(unknown_classes_.size()) + " unknown classes (" +
         UnknownSchemeName(scheme_) + (lowercase_ ? ", lowercased)" : ")");
}

}  // namespace seqflow

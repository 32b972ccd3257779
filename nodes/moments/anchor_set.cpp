#include "nodes/moments/anchor_set.h"

namespace seqflow {

void AnchorSet::Save(ByteWriter& w) const {
  w.Strs(label_names);
  for (size_t h = 0; h < label_names.size(); ++h) {
    w.I32s(symbols[h].data(), symbols[h].size());
    w.Strs(words[h]);
  }
}

std::shared_ptr<const AnchorSet> AnchorSet::Load(ByteReader& r) {
  auto a = std::make_shared<AnchorSet>();
  a->label_names = r.Strs();
  for (size_t h = 0; h < a->label_names.size(); ++h) {
    a->symbols.push_back(r.I32s());
    a->words.push_back(r.Strs());
    if (a->symbols.back().size() != a->words.back().size())
      throw StatusError(Status::Corruption("AnchorSet: symbols and words of a label disagree"));
  }
  return a;
}

std::string AnchorSet::Describe() const {
  size_t total = 0, fewest = 0;
  for (size_t h = 0; h < symbols.size(); ++h) {
    total += symbols[h].size();
    if (symbols[h].size() < symbols[fewest].size()) fewest = h;
  }
  std::string out =
      "anchors for " + std::to_string(label_names.size()) + " labels: " + std::to_string(total) + " words";
  if (!symbols.empty()) out += " (fewest: " + label_names[fewest] + " " + std::to_string(symbols[fewest].size()) + ")";
  return out;
}

}  // namespace seqflow

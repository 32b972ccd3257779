#include "nodes/io/class_sequences.h"

#include <algorithm>
#include <charconv>

namespace seqflow {
namespace {

bool ParseInt(std::string_view text, int32_t* out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size() && *out >= 0;
}

// Partial Fisher-Yates: the first `count` of a seeded permutation of `items`.
std::vector<size_t> ChooseLabeled(std::vector<size_t> items, int count, Rng& rng) {
  for (int i = 0; i < count; ++i) {
    const size_t j = i + static_cast<size_t>(Uniform01(rng) * static_cast<double>(items.size() - i));
    std::swap(items[i], items[std::min(j, items.size() - 1)]);
  }
  items.resize(count);
  return items;
}

}  // namespace

void ClassSequences::Save(ByteWriter& w) const {
  w.Str(source);
  w.U32(static_cast<uint32_t>(num_classes));
  w.U32(static_cast<uint32_t>(num_symbols));
  w.U64(sequences.size());
  for (const auto& s : sequences) w.I32s(s.data(), s.size());
  w.I32s(labels.data(), labels.size());
}

std::shared_ptr<const ClassSequences> ClassSequences::Load(ByteReader& r) {
  auto out = std::make_shared<ClassSequences>();
  out->source = r.Str();
  out->num_classes = static_cast<int>(r.U32());
  out->num_symbols = static_cast<int>(r.U32());
  const size_t n = r.Count(8);
  for (size_t i = 0; i < n; ++i) out->sequences.push_back(r.I32s());
  out->labels = r.I32s();
  if (out->labels.size() != n) throw StatusError(Status::Corruption("ClassSequences: labels do not match sequences"));
  return out;
}

std::string ClassSequences::Describe() const {
  return std::to_string(sequences.size()) + " sequences, " + std::to_string(num_classes) + " classes, " +
         std::to_string(num_symbols) + " symbols";
}

Result<std::shared_ptr<ClassSequences>> ParseClassSequences(std::string_view text, const std::string& source) {
  auto out = std::make_shared<ClassSequences>();
  out->source = source;
  size_t line_no = 0;
  while (!text.empty()) {
    const size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    auto bad = [&](const std::string& why) {
      return Status::Invalid(why, SourceLoc{source, static_cast<int>(line_no), 0});
    };
    const size_t tab = line.find('\t');
    if (tab == std::string_view::npos) return bad("expected `class<TAB>symbols`, found no tab");
    int32_t label = 0;
    if (!ParseInt(line.substr(0, tab), &label)) return bad("the class is not a non-negative integer");
    std::vector<int32_t> symbols;
    std::string_view rest = line.substr(tab + 1);
    while (!rest.empty()) {
      const size_t start = rest.find_first_not_of(' ');
      if (start == std::string_view::npos) break;
      rest.remove_prefix(start);
      const size_t end = rest.find(' ');
      int32_t symbol = 0;
      if (!ParseInt(rest.substr(0, end), &symbol))
        return bad("symbol '" + std::string(rest.substr(0, end)) + "' is not a non-negative integer");
      symbols.push_back(symbol);
      rest = end == std::string_view::npos ? std::string_view() : rest.substr(end);
    }
    if (symbols.empty()) return bad("the sequence is empty");
    out->num_classes = std::max(out->num_classes, label + 1);
    for (int32_t s : symbols) out->num_symbols = std::max(out->num_symbols, s + 1);
    out->sequences.push_back(std::move(symbols));
    out->labels.push_back(label);
  }
  if (out->sequences.empty()) return Status::Invalid(source + ": no sequences");
  return out;
}

Result<std::vector<bool>> ChooseLabeledPerClass(const std::vector<int32_t>& labels, int num_classes, int per_class,
                                                Rng& rng) {
  std::vector<bool> is_labeled(labels.size(), false);
  for (int y = 0; y < num_classes; ++y) {
    std::vector<size_t> members;
    for (size_t i = 0; i < labels.size(); ++i)
      if (labels[i] == y) members.push_back(i);
    if (static_cast<int>(members.size()) <= per_class)
      return Status::Invalid("class " + std::to_string(y) + " has " + std::to_string(members.size()) +
                             " sequences, not more than the " + std::to_string(per_class) + " to label");
    for (size_t i : ChooseLabeled(members, per_class, rng)) is_labeled[i] = true;
  }
  return is_labeled;
}

}  // namespace seqflow

#include "nodes/features/template_parser.h"

#include <algorithm>
#include <charconv>
#include <set>

#include "engine/api/registry.h"
#include "nodes/features/feature_templates.h"
#include "nodes/features/unknown_words.h"
#include "nodes/io/text_encoding.h"

namespace seqflow {

namespace {

constexpr int32_t kMaxAffix = 4;
constexpr std::string_view kKnownFunctions = "lower, shape, prefix1..prefix4, suffix1..suffix4, ngrams1..ngrams4";

Status Fail(const FeatureTemplate& t, const std::string& problem) {
  std::string who = t.name == t.text ? "'" + t.text + "'" : "'" + t.name + "' (" + t.text + ")";
  return Status::Invalid("template " + who + ": " + problem);
}

std::string_view Trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// "lower" -> kLower; "prefix3" -> kPrefix with length 3.
Result<ColumnView> ParseFunction(const FeatureTemplate& t, std::string_view name) {
  ColumnView view;
  if (name == "lower") view.function = TokenFunction::kLower;
  if (name == "shape") view.function = TokenFunction::kShape;
  for (auto [stem, fn] : {std::pair{std::string_view("prefix"), TokenFunction::kPrefix},
                          std::pair{std::string_view("suffix"), TokenFunction::kSuffix},
                          std::pair{std::string_view("ngrams"), TokenFunction::kNgrams}}) {
    if (name.size() == stem.size() + 1 && name.substr(0, stem.size()) == stem && name.back() >= '1' &&
        name.back() < '1' + kMaxAffix) {
      view.function = fn;
      view.length = name.back() - '0';
    }
  }
  if (view.function == TokenFunction::kIdentity)
    return Fail(t, "unknown function '" + std::string(name) + "' (known: " + std::string(kKnownFunctions) + ")");
  return view;
}

Result<int32_t> ParseOffset(const FeatureTemplate& t, std::string_view text) {
  std::string_view digits = Trim(text);
  if (!digits.empty() && digits[0] == '+') digits.remove_prefix(1);
  int32_t offset = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), offset);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size())
    return Fail(t, "offset '" + std::string(text) + "' is not an integer (expected e.g. word[-1])");
  if (offset < -kMaxTemplateOffset || offset > kMaxTemplateOffset)
    return Fail(t, "offset " + std::to_string(offset) + " is out of range (at most " + std::to_string(kMaxTemplateOffset) +
                " tokens away)");
  return offset;
}

Result<int32_t> ParseColumn(const FeatureTemplate& t, std::string_view name, const std::vector<std::string>& columns) {
  auto it = std::find(columns.begin(), columns.end(), name);
  if (it != columns.end()) return static_cast<int32_t>(it - columns.begin());
  std::string message = "unknown column '" + std::string(name) + "'";
  std::string near = NearestName(name, columns);
  if (!near.empty()) message += " (did you mean '" + near + "'?)";
  return Fail(t, message + "; the corpus has columns " + Join(columns));
}

int32_t ViewIndex(CompiledTemplates& c, const ColumnView& view) {
  auto it = std::find(c.views.begin(), c.views.end(), view);
  if (it != c.views.end()) return static_cast<int32_t>(it - c.views.begin());
  c.views.push_back(view);
  c.column_used[view.column] = true;
  return static_cast<int32_t>(c.views.size()) - 1;
}

// One atom: "column[offset]" or "function(column[offset])".
Result<TemplateAtom> ParseAtom(const FeatureTemplate& t, std::string_view atom, const std::vector<std::string>& columns,
                               CompiledTemplates& c) {
  atom = Trim(atom);
  if (atom.empty()) return Fail(t, "empty atom (expected column[offset], e.g. word[0], joined by '|')");
  ColumnView view;
  const size_t paren = atom.find('(');
  if (paren != std::string_view::npos) {
    if (atom.back() != ')') return Fail(t, "atom '" + std::string(atom) + "' lacks its closing ')'");
    Result<ColumnView> function = ParseFunction(t, Trim(atom.substr(0, paren)));
    if (!function.ok()) return function.status();
    view = *function;
    atom = Trim(atom.substr(paren + 1, atom.size() - paren - 2));
  }
  const size_t bracket = atom.find('[');
  if (bracket == std::string_view::npos || atom.back() != ']')
    return Fail(t, "atom '" + std::string(atom) + "' is not column[offset] (e.g. word[0])");
  Result<int32_t> column = ParseColumn(t, Trim(atom.substr(0, bracket)), columns);
  if (!column.ok()) return column.status();
  view.column = *column;
  Result<int32_t> offset = ParseOffset(t, atom.substr(bracket + 1, atom.size() - bracket - 2));
  if (!offset.ok()) return offset.status();
  return TemplateAtom{ViewIndex(c, view), *offset};
}

Status CheckName(const FeatureTemplate& t, std::set<std::string_view>& names) {
  if (t.name.empty()) return Fail(t, "empty name");
  if (t.name.find('=') != std::string::npos) return Fail(t, "name contains '=', which separates name and values");
  if (!names.insert(t.name).second) return Fail(t, "duplicate template name");
  return Status();
}

bool IsContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

std::string_view Prefix(std::string_view s, int32_t n) {
  size_t end = 0;
  for (int32_t i = 0; i < n && end < s.size(); ++i) do
      ++end;
    while (end < s.size() && IsContinuationByte(s[end]));
  return s.substr(0, end);
}

std::string_view Suffix(std::string_view s, int32_t n) {
  size_t begin = s.size();
  for (int32_t i = 0; i < n && begin > 0; ++i) do
      --begin;
    while (begin > 0 && IsContinuationByte(s[begin]));
  return s.substr(begin);
}

}  // namespace

Result<CompiledTemplates> CompileTemplates(const std::vector<FeatureTemplate>& templates,
                                           const std::vector<std::string>& columns) {
  CompiledTemplates c;
  c.column_used.assign(columns.size(), false);
  std::set<std::string_view> names;
  for (const FeatureTemplate& t : templates) {
    if (Status s = CheckName(t, names); !s.ok()) return s;
    if (Trim(t.text).empty()) return Fail(t, "empty template");
    std::vector<TemplateAtom> atoms;
    const std::string_view text = t.text;
    for (size_t start = 0;;) {
      const size_t bar = text.find('|', start);
      Result<TemplateAtom> atom = ParseAtom(t, text.substr(start, bar - start), columns, c);
      if (!atom.ok()) return atom.status();
      atoms.push_back(*atom);
      if (bar == std::string_view::npos) break;
      start = bar + 1;
    }
    const bool multi_valued = std::any_of(atoms.begin(), atoms.end(),
                                          [&](const TemplateAtom& a) { return IsMultiValued(c.views[a.view]); });
    // The paper's token view needs n-grams alone; a cross product with other atoms would multiply
    // the attributes per token for no use we have, so it is refused rather than guessed at.
    if (multi_valued && atoms.size() > 1)
      return Fail(t, "an ngramsN() atom has several values per token and cannot be joined with other atoms by '|'; "
                     "make it a template of its own");
    c.atoms.push_back(std::move(atoms));
    c.multi_valued.push_back(multi_valued);
  }
  return c;
}

std::string_view WordType(std::string_view word) {
  // Index the shape classes once; everything after "<UNK-mixed>" is a lowercase suffix class.
  static const std::vector<std::string> kTypes = [] {
    const std::vector<std::string>& names = UnknownClassNames(UnknownScheme::kShape);
    std::vector<std::string> types;
    bool suffix_classes = false;
    for (const std::string& name : names) {
      types.push_back(suffix_classes ? "x" : name.substr(5, name.size() - 6));  // strip "<UNK-" ">"
      suffix_classes = suffix_classes || name == "<UNK-mixed>";
    }
    return types;
  }();
  return kTypes[UnknownClassIndex(word, UnknownScheme::kShape)];
}

std::string_view ViewValue(const ColumnView& view, std::string_view token, std::string* scratch) {
  switch (view.function) {
    case TokenFunction::kIdentity:
      return token;
    case TokenFunction::kLower:
      *scratch = LowercaseUtf8(token);
      return *scratch;
    case TokenFunction::kShape:
      return WordType(token);
    case TokenFunction::kPrefix:
      return Prefix(token, view.length);
    case TokenFunction::kSuffix:
      return Suffix(token, view.length);
    case TokenFunction::kNgrams:
      break;  // multi-valued: LetterNgrams
  }
  return token;
}

void LetterNgrams(std::string_view token, int32_t n, std::vector<std::string_view>* out) {
  out->clear();
  auto next = [&](size_t i) {
    do ++i;
    while (i < token.size() && IsContinuationByte(token[i]));
    return i;
  };
  for (size_t begin = 0; begin < token.size(); begin = next(begin)) {
    size_t end = begin;
    int32_t letters = 0;
    for (; letters < n && end < token.size(); ++letters) end = next(end);
    if (letters < n) break;
    const std::string_view gram = token.substr(begin, end - begin);
    // Words are short (a few dozen n-grams at most), so a linear scan beats a hash set here.
    if (std::find(out->begin(), out->end(), gram) == out->end()) out->push_back(gram);
  }
}

}  // namespace seqflow

#include "nodes/features/unknown_words.h"

#include <array>

#include "nodes/io/text_encoding.h"

namespace seqflow {

namespace {

// Shape classes in id order; the suffix classes and <UNK-x> follow kFirstSuffix.
enum ShapeClass {
  kPunct,
  kFourDigits,
  kDigits,
  kNumber,
  kDigitPunct,
  kAlnum,
  kOther,
  kInitial,
  kCaps,
  kCapHyphen,
  kLowerHyphen,
  kCapPeriod,
  kCapComma,
  kCap,
  kMixed,
  kFirstSuffix,
};
constexpr std::array<const char*, kFirstSuffix> kFixedNames = {
    "<UNK-punct>",    "<UNK-4digits>", "<UNK-digits>",  "<UNK-number>", "<UNK-digit-punct>",
    "<UNK-alnum>",    "<UNK-other>",   "<UNK-initial>", "<UNK-CAPS>",   "<UNK-Xx-hyphen>",
    "<UNK-x-hyphen>", "<UNK-Xx.>",     "<UNK-Xx,>",     "<UNK-Xx>",     "<UNK-mixed>"};
// First match wins, so a suffix that ends another ("ness" / "s") comes before it.
constexpr std::array<std::string_view, 21> kSuffixes = {"ing", "ed",  "ly",  "ion", "ment", "ness", "ity",
                                                        "ble", "ive", "ous", "ful", "less", "ism",  "ist",
                                                        "ize", "ise", "al",  "ic",  "est",  "er",   "s"};
constexpr int kLowerPlain = kFirstSuffix + static_cast<int>(kSuffixes.size());
constexpr size_t kMinStem = 2;

enum class Kind { kUpper, kLower, kCaseless, kDigit, kPunct };

Kind KindOf(char32_t c) {
  if (c >= '0' && c <= '9') return Kind::kDigit;
  if (IsUpperLetter(c)) return Kind::kUpper;
  if (IsLowerLetter(c)) return Kind::kLower;
  // ASCII and Latin-1 symbols, General Punctuation (dashes, curly quotes), CJK punctuation.
  if (c < 0x100 || (c >= 0x2000 && c <= 0x206F) || (c >= 0x3000 && c <= 0x303F)) return Kind::kPunct;
  return Kind::kCaseless;
}

// Counts over the word's core: the span from its first to its last letter or digit.
struct Profile {
  std::string_view core;
  Kind first = Kind::kPunct;
  int upper = 0, lower = 0, caseless = 0, digits = 0, punct = 0;
  bool only_number_punct = true;  // every punctuation mark inside the core is '.' or ','
  bool hyphen = false;
};

Profile ProfileOf(std::string_view word) {
  Profile p;
  size_t core_begin = std::string_view::npos, core_end = 0;
  int pending_punct = 0;  // punctuation seen since the last letter/digit
  bool pending_number_punct = true, pending_hyphen = false;
  for (size_t pos = 0; pos < word.size();) {
    size_t start = pos;
    char32_t c = NextCodePoint(word, &pos);
    Kind kind = KindOf(c);
    if (kind == Kind::kPunct) {
      ++pending_punct;
      pending_number_punct = pending_number_punct && (c == '.' || c == ',');
      pending_hyphen = pending_hyphen || c == '-';
      continue;
    }
    if (core_begin == std::string_view::npos) {
      core_begin = start;
      p.first = kind;
    } else {  // punctuation between two letters/digits belongs to the core
      p.punct += pending_punct;
      p.only_number_punct = p.only_number_punct && pending_number_punct;
      p.hyphen = p.hyphen || pending_hyphen;
    }
    pending_punct = 0;
    pending_number_punct = true;
    pending_hyphen = false;
    core_end = pos;
    p.upper += kind == Kind::kUpper;
    p.lower += kind == Kind::kLower;
    p.caseless += kind == Kind::kCaseless;
    p.digits += kind == Kind::kDigit;
  }
  if (core_begin != std::string_view::npos) p.core = word.substr(core_begin, core_end - core_begin);
  return p;
}

int DigitClass(const Profile& p) {
  if (p.upper + p.lower + p.caseless > 0) return kAlnum;
  if (p.punct == 0) return p.digits == 4 ? kFourDigits : kDigits;
  return p.only_number_punct ? kNumber : kDigitPunct;
}

int LowercaseClass(std::string_view core) {
  for (size_t i = 0; i < kSuffixes.size(); ++i) {
    std::string_view s = kSuffixes[i];
    if (core.size() >= s.size() + kMinStem && core.substr(core.size() - s.size()) == s)
      return kFirstSuffix + static_cast<int>(i);
  }
  return kLowerPlain;
}

int ShapeClassOf(std::string_view word) {
  Profile p = ProfileOf(word);
  if (p.core.empty()) return kPunct;
  if (p.digits > 0) return DigitClass(p);
  if (p.upper == 0 && p.lower == 0) return kOther;
  if (p.upper == 1 && p.lower == 0 && p.caseless == 0 && p.punct == 0) return kInitial;
  if (p.lower == 0) return kCaps;
  if (p.hyphen) return p.first == Kind::kUpper ? kCapHyphen : kLowerHyphen;
  if (p.first == Kind::kUpper) return word.back() == '.' ? kCapPeriod : word.back() == ',' ? kCapComma : kCap;
  if (p.upper > 0) return kMixed;
  return LowercaseClass(p.core);
}

const std::vector<std::string>& ShapeNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n(kFixedNames.begin(), kFixedNames.end());
    for (std::string_view s : kSuffixes) n.push_back("<UNK-x-" + std::string(s) + ">");
    n.push_back("<UNK-x>");
    return n;
  }();
  return names;
}

}  // namespace

const std::vector<std::string>& UnknownClassNames(UnknownScheme scheme) {
  static const std::vector<std::string> kSingle = {"<UNK>"};
  return scheme == UnknownScheme::kSingle ? kSingle : ShapeNames();
}

int UnknownClassIndex(std::string_view word, UnknownScheme scheme) {
  return scheme == UnknownScheme::kSingle ? 0 : ShapeClassOf(word);
}

const std::string& UnknownWordClass(std::string_view word, UnknownScheme scheme) {
  return UnknownClassNames(scheme)[UnknownClassIndex(word, scheme)];
}

}  // namespace seqflow

#include "datasets/word_pools.h"

#include <cctype>
#include <cmath>
#include <set>

namespace seqflow {
namespace {

// Zipf exponents restricted to multiples of 1/2, so the weights need only sqrt, * and /, which
// IEEE 754 rounds exactly on every platform (std::pow is not correctly rounded everywhere).
enum class Zipf { kFlat, kHalf, kOne, kOneAndHalf };

double ZipfWeight(size_t rank, Zipf zipf) {
  const double r = static_cast<double>(rank);
  switch (zipf) {
    case Zipf::kFlat: return 1.0;
    case Zipf::kHalf: return 1.0 / std::sqrt(r);
    case Zipf::kOne: return 1.0 / r;
    case Zipf::kOneAndHalf: return 1.0 / (r * std::sqrt(r));
  }
  return 1.0;
}

// Weights 1 / rank^zipf over `words` in their given order (rank 1 first).
WordPool MakePool(std::vector<std::string> words, Zipf zipf) {
  std::vector<double> weights(words.size());
  for (size_t r = 0; r < words.size(); ++r) weights[r] = ZipfWeight(r + 1, zipf);
  return {std::move(words), CumulativeSums(weights)};
}

std::string Syllable(Rng& rng) {
  static const char* const kOnsets[] = {"b", "c", "d", "f", "g", "h",  "k",  "l",  "m",  "n",  "p",
                                        "r", "s", "t", "v", "z", "br", "ch", "st", "tr", "gr", "sh"};
  static const char* const kVowels[] = {"a", "e", "i", "o", "u", "ai", "ou", "ei"};
  static const char* const kCodas[] = {"", "", "", "n", "r", "s", "l", "t", "m", "ck"};
  std::string s = kOnsets[UniformIndex(std::size(kOnsets), rng)];
  s += kVowels[UniformIndex(std::size(kVowels), rng)];
  return s + kCodas[UniformIndex(std::size(kCodas), rng)];
}

// `n` distinct words of min_syl..max_syl syllables, in draw order (which is their Zipf rank).
std::vector<std::string> SyntheticWords(Rng& rng, size_t n, int min_syl, int max_syl, bool capital) {
  std::vector<std::string> words;
  std::set<std::string> seen;
  while (words.size() < n) {
    int syllables = min_syl + static_cast<int>(UniformIndex(static_cast<size_t>(max_syl - min_syl + 1), rng));
    std::string w;
    for (int i = 0; i < syllables; ++i) w += Syllable(rng);
    if (capital) w[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(w[0])));
    if (seen.insert(w).second) words.push_back(std::move(w));
  }
  return words;
}

std::vector<std::string> Acronyms(Rng& rng, size_t n) {
  std::vector<std::string> words;
  std::set<std::string> seen;
  while (words.size() < n) {
    std::string w(2 + UniformIndex(4, rng), 'A');
    for (char& c : w) c = static_cast<char>('A' + UniformIndex(26, rng));
    if (seen.insert(w).second) words.push_back(std::move(w));
  }
  return words;
}

std::vector<std::string> Initials(Rng& rng) {
  std::vector<std::string> words;
  for (char c = 'A'; c <= 'Z'; ++c) words.push_back(std::string(1, c) + ".");
  for (size_t i = words.size(); i > 1; --i) std::swap(words[i - 1], words[UniformIndex(i, rng)]);
  for (int i = 0; i < 12; ++i) words.push_back(words[i] + "-" + words[i + 1]);
  return words;
}

std::vector<std::string> PageRanges(Rng& rng, size_t n) {
  std::vector<std::string> words;
  for (size_t i = 0; i < n; ++i) {
    size_t first = 1 + UniformIndex(900, rng);
    words.push_back(std::to_string(first) + "-" + std::to_string(first + 1 + UniformIndex(30, rng)));
  }
  return words;
}

std::vector<std::string> Numbers(Rng& rng) {
  std::vector<std::string> words = {"vol.", "Vol.", "no.", "No."};
  for (int v = 1; v <= 40; ++v) words.push_back(std::to_string(v));
  for (int i = 0; i < 40; ++i) {
    std::string volume = std::to_string(1 + UniformIndex(40, rng));
    words.push_back(volume + "(" + std::to_string(1 + UniformIndex(12, rng)) + ")");
  }
  return words;
}

std::vector<std::string> Years(Rng& rng) {
  std::vector<std::string> words;
  for (int y = 2005; y >= 1960; --y) words.push_back(std::to_string(y));
  // Recent years first, slightly shuffled so the Zipf ranks are not strictly by age.
  for (size_t i = 0; i + 1 < words.size(); ++i)
    if (Bernoulli(0.3, rng)) std::swap(words[i], words[i + 1]);
  return words;
}

std::vector<std::string> Join(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

std::vector<WordPool> BuildWordPools(Rng& rng) {
  std::vector<WordPool> pools(kNumPools);
  auto set = [&pools](Pool p, WordPool pool) { pools[static_cast<int>(p)] = std::move(pool); };
  set(Pool::kFunction, MakePool({"of",   "the", "and",   "for", "in",  "a", "on",  "with", "to", "In",
                                 "from", "by",  "using", "an",  "The", "A", "its", "via",  "at", "as"},
                                Zipf::kOne));
  set(Pool::kConnective, MakePool({"and", "&", "et", "al.", "with"}, Zipf::kOne));
  set(Pool::kInitial, MakePool(Initials(rng), Zipf::kHalf));
  set(Pool::kSurname, MakePool(SyntheticWords(rng, 2500, 2, 3, true), Zipf::kOne));
  set(Pool::kTitleWord, MakePool(SyntheticWords(rng, 4000, 1, 3, false), Zipf::kOne));
  set(Pool::kTopic, MakePool(SyntheticWords(rng, 400, 2, 3, true), Zipf::kOne));
  set(Pool::kVenueWord,
      MakePool(Join({"Proceedings", "Proc.",        "Conference", "Journal",  "International", "Symposium", "Workshop",
                     "Annual",      "Transactions", "Intl.",      "J.",       "Conf.",         "ACM",       "IEEE",
                     "Society",     "Review",       "Letters",    "Research", "Press",         "University"},
                    Acronyms(rng, 300)),
               Zipf::kOne));
  set(Pool::kEditorWord, MakePool({"In", "editors", "eds.", "editor", "ed.", "(eds.)", "Ed.", "(ed.)"}, Zipf::kOne));
  set(Pool::kPageWord, MakePool({"pp.", "pages", "p."}, Zipf::kOneAndHalf));
  set(Pool::kPageRange, MakePool(PageRanges(rng, 2000), Zipf::kFlat));
  set(Pool::kNumber, MakePool(Numbers(rng), Zipf::kHalf));
  set(Pool::kYear, MakePool(Years(rng), Zipf::kHalf));
  set(Pool::kNoteWord,
      MakePool({"to",          "appear",     "Technical", "Report",   "submitted", "thesis",  "PhD",  "Ph.D.",
                "unpublished", "manuscript", "available", "draft",    "version",   "revised", "Also", "press",
                "preprint",    "Department", "Dept.",     "Computer", "Science",   "TR"},
               Zipf::kOne));
  return pools;
}

}  // namespace seqflow

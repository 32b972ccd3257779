#include "nodes/fhmm/word_features.h"

#include <cctype>
#include <unordered_map>

namespace seqflow {

namespace {

char ShapeOf(unsigned char c) {
  if (std::isupper(c)) return 'X';
  if (std::islower(c)) return 'x';
  if (std::isdigit(c)) return 'd';
  return c < 128 ? static_cast<char>(c) : 'u';
}

std::vector<std::string> FeaturesOf(const std::string& word) {
  std::vector<std::string> f{"w=" + word};
  bool any_alnum = false, any_digit = false, any_lower = false, any_upper = false;
  std::string lower, shape;
  for (unsigned char c : word) {
    any_alnum |= std::isalnum(c) != 0;
    any_digit |= std::isdigit(c) != 0;
    any_lower |= std::islower(c) != 0;
    any_upper |= std::isupper(c) != 0;
    lower += static_cast<char>(std::tolower(c));
    const char s = ShapeOf(c);
    if (shape.empty() || shape.back() != s) shape += s;
  }
  const auto first = static_cast<unsigned char>(word[0]);
  if (std::isupper(first)) f.push_back("cap");
  if (any_upper && !any_lower) f.push_back("allcaps");
  if (std::isupper(first) && any_lower) f.push_back("title");
  if (any_digit) f.push_back("digit");
  if (word.find('-') != std::string::npos) f.push_back("hyphen");
  if (!any_alnum) f.push_back("punct");
  f.push_back("shape=" + shape);
  for (size_t n = 1; n <= 3 && n < lower.size(); ++n) {
    f.push_back("pre" + std::to_string(n) + "=" + lower.substr(0, n));
    f.push_back("suf" + std::to_string(n) + "=" + lower.substr(lower.size() - n));
  }
  if (word[0] == '@') f.push_back("at");
  if (word[0] == '#') f.push_back("hash");
  if (lower.rfind("http", 0) == 0 || lower.rfind("www.", 0) == 0) f.push_back("url");
  return f;
}

}  // namespace

WordFeatures BuildWordFeatures(const Vocab& vocab) {
  WordFeatures out;
  std::unordered_map<std::string, int> index;
  std::vector<Eigen::Triplet<double>> entries;
  for (int32_t w = 0; w < vocab.size(); ++w) {
    const std::string& name = vocab.Name(w);
    std::vector<std::string> features =
        w < vocab.num_known() ? FeaturesOf(name) : std::vector<std::string>{"w=" + name, "unknown"};
    for (const std::string& f : features) {
      auto [it, inserted] = index.try_emplace(f, static_cast<int>(out.names.size()));
      if (inserted) out.names.push_back(f);
      entries.emplace_back(w, it->second, 1.0);
    }
  }
  out.phi.resize(vocab.size(), static_cast<Eigen::Index>(out.names.size()));
  out.phi.setFromTriplets(entries.begin(), entries.end());
  return out;
}

}  // namespace seqflow

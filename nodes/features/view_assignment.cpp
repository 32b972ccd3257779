#include "nodes/features/view_assignment.h"

#include <algorithm>
#include <string>

namespace seqflow {

namespace {

// SplitMix64's finaliser (Steele, Lea & Flood 2014): a fixed function, the same on every platform.
uint64_t Mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

std::string Trimmed(const std::string& s) {
  const size_t begin = s.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  return s.substr(begin, s.find_last_not_of(" \t") - begin + 1);
}

}  // namespace

const char* ViewSplitName(ViewSplit split) {
  switch (split) {
    case ViewSplit::kTokenSurface:
      return "token_surface";
    case ViewSplit::kRandom:
      return "random";
    case ViewSplit::kOddEven:
      return "odd_even";
    case ViewSplit::kTemplates:
      return "templates";
  }
  return "?";
}

bool IsSurfaceTemplate(const std::string& text) {
  size_t begin = 0;
  while (true) {
    const size_t end = text.find('|', begin);
    if (Trimmed(text.substr(begin, end - begin)).rfind("shape(", 0) != 0) return false;
    if (end == std::string::npos) return true;
    begin = end + 1;
  }
}

Result<std::vector<int32_t>> AssignViews(const FeatureDictionary& dictionary, ViewSplit split, uint64_t seed,
                                         const std::vector<std::string>& second_view) {
  const int32_t A = dictionary.num_attributes();
  std::vector<int32_t> view(static_cast<size_t>(A), 0);
  std::vector<bool> surface, named;
  std::string template_list;
  for (const FeatureTemplate& t : dictionary.templates()) {
    surface.push_back(IsSurfaceTemplate(t.text));
    named.push_back(std::find(second_view.begin(), second_view.end(), Trimmed(t.text)) != second_view.end());
    template_list += (template_list.empty() ? "" : ", ") + t.text;
  }
  if (split == ViewSplit::kTemplates)
    for (const std::string& text : second_view) {
      bool found = false;
      for (const FeatureTemplate& t : dictionary.templates()) found |= Trimmed(t.text) == text;
      if (!found)
        return Status::Invalid("features.views: second_view names '" + text +
                               "', which is not one of the templates (" + template_list + ")");
    }
  const uint64_t key = Mix(seed);
  for (int32_t a = 0; a < A; ++a) {
    switch (split) {
      case ViewSplit::kTokenSurface:
        view[a] = surface[static_cast<size_t>(dictionary.attribute_template(a))] ? 1 : 0;
        break;
      case ViewSplit::kRandom:
        view[a] = static_cast<int32_t>(Mix(key ^ static_cast<uint64_t>(a)) >> 63);
        break;
      case ViewSplit::kOddEven:
        view[a] = a % 2;
        break;
      case ViewSplit::kTemplates:
        view[a] = named[static_cast<size_t>(dictionary.attribute_template(a))] ? 1 : 0;
        break;
    }
  }
  int32_t in_view1 = 0;
  for (int32_t v : view) in_view1 += v;
  if (in_view1 == 0 || in_view1 == A)
    return Status::Invalid(std::string("features.views: the ") + ViewSplitName(split) +
                           " split leaves a view without attributes" +
                           (split == ViewSplit::kTokenSurface ? " (the surface view needs shape() templates)"
                            : split == ViewSplit::kTemplates
                                ? " (second_view must name some of the templates, not all)"
                                : ""));
  return view;
}

}  // namespace seqflow

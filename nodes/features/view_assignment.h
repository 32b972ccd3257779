// Two disjoint views of the token attributes of a FeatureDictionary (Brefeld et al. 2005, §3.2 and
// §6): view[a] ∈ {0, 1} for every attribute id a.
//
// A view is a mask over the attribute index, not a template set of its own: one dictionary and one
// feature extraction serve both views and the joint model, the attribute ids (and so the weight
// rows) are the same in single-view and multi-view training, and the random and odd/even splits of
// §6 split individual features, which a template-level split cannot express.
//   token_surface  view 0: the token and its letter strings (every template with an atom that is not
//                  a shape() class); view 1: the surface clues (templates all of whose atoms are
//                  shape(): capitalisation, digits, punctuation classes of the token and neighbours)
//   random         each attribute in view 0 or 1 by a fair coin from SplitMix64(seed, id)
//   odd_even       attribute ids in first-occurrence order: even ids view 0, odd ids view 1, so each
//                  view holds about half of every template's attributes ("half of the Boolean token
//                  features as well as half of the surface clues")
//   templates      view 1: the attributes of the templates named in `second_view`; view 0: the rest
//                  (views that are not shape classes, such as a second token column)
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/base/status.h"
#include "nodes/features/feature_templates.h"

namespace seqflow {

enum class ViewSplit { kTokenSurface, kRandom, kOddEven, kTemplates };
const char* ViewSplitName(ViewSplit split);  // "token_surface", "random", "odd_even", "templates"

// True when every atom of the template text reads a shape() class.
bool IsSurfaceTemplate(const std::string& text);

// [A] view of each attribute. Status::Invalid when a view would be empty (e.g. token_surface with
// no shape() template), naming the split, and when `second_view` names a template the dictionary
// does not have (split templates; the other splits ignore it).
Result<std::vector<int32_t>> AssignViews(const FeatureDictionary& dictionary, ViewSplit split, uint64_t seed,
                                         const std::vector<std::string>& second_view = {});

}  // namespace seqflow

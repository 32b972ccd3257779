// Binary word features φ(x) of the feature HMM (Marinho et al. 2016, §6.1, after Berg-Kirkpatrick
// et al. 2010 and Owoputi et al. 2013), over the symbols of a Vocab:
//   w=WORD (identity), cap (first letter upper case), allcaps, title (upper then lower),
//   digit (has a digit), hyphen, punct (no letter or digit), shape=COMPRESSED (X, x, d, other
//   runs collapsed: "Obama" -> "Xx"), pre1..pre3=, suf1..suf3= (on the lower-cased word, words
//   longer than the affix), at (starts with @), hash (starts with #), url (starts with http or www.)
// Unknown-word classes get their class name as identity and `unknown`. ASCII letters only decide
// case. Pure; thread safety: stateless.
#pragma once

#include <Eigen/Sparse>
#include <string>
#include <vector>

#include "nodes/features/vocab.h"

namespace seqflow {

struct WordFeatures {
  std::vector<std::string> names;   // [W]
  Eigen::SparseMatrix<double> phi;  // [V x W], entries 1
};

WordFeatures BuildWordFeatures(const Vocab& vocab);

}  // namespace seqflow

// Feature contexts (Marinho et al. 2016, §6.1): ψ(z) = [φ(x_{ℓ-1}); φ(x_{ℓ+1})], the word
// features of the previous and the next word (word_features.h), with BOS and EOS as features of
// their own, instead of the one-hot previous/next symbol of moment_counts.h.
//
// Every one-hot context c of moment_counts.h (prev = s or BOS, next = s or EOS) stands for a
// fixed set of feature contexts, so the feature counts are a linear map of the one-hot counts:
//   M_f = F M,   F [C_f x 2 (V + 1)],   F[f, c] = 1 when the one-hot context c has feature f.
// Q̂, q̄, R̂ (Eqs. 5, 6, 12) are linear in M, so they follow from M_f unchanged; n_w and N stay.
// A feature context is kept when its token count in the one-hot counts (Σ_w M_f[f, w]) reaches
// `min_count` — the paper keeps contexts seen more than 20 times, min_count = 21.
// Names: "prev:" or "next:" and the word feature's name ("prev:suf2=ed"), "prev:BOS", "next:EOS".
// Kept features are in a fixed order (previous block, then next; word-feature order within), so
// the result is the same for any thread count. Pure; thread safety: stateless.
#pragma once

#include <Eigen/Sparse>
#include <string>
#include <vector>

#include "engine/base/status.h"
#include "nodes/features/moment_counts.h"
#include "nodes/fhmm/word_features.h"

namespace seqflow {

struct ContextFeatures {
  std::vector<std::string> names;   // [C_f]
  Eigen::SparseMatrix<double> map;  // [C_f x 2 (V + 1)] F, entries 1
};

// REQUIRES: `features` are the word features of the V symbols of `onehot` (phi is V x W) and
// onehot has the one-hot layout of moment_counts.h. Invalid otherwise, or when min_count < 1 or
// no feature context reaches it.
Result<ContextFeatures> BuildContextFeatures(const WordFeatures& features, const MomentCounts& onehot,
                                             int64_t min_count);

// The counts with contexts mapped by `map`: cooccurrence = map * onehot.cooccurrence; symbols,
// n_w and N unchanged. REQUIRES: map.cols() == onehot.num_contexts().
MomentCounts MapContexts(const MomentCounts& onehot, const Eigen::SparseMatrix<double>& map);

}  // namespace seqflow

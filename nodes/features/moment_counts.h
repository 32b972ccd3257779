// Context-word moments from unlabeled text (Marinho et al. 2016, §3.1, Eqs. 5-7), as counts.
//
// Words are symbol ids in [0, V) (a Vocab's ids: rare words are already pooled into unknown-word
// classes, which is the frequency cut-off). The context features ψ(z) of a token are one-hot:
// the previous word's id (or BOS) and the next word's id (or EOS), so C = 2 (V + 1):
//   c = prev            for c in [0, V], prev = V at the sentence start (BOS)
//   c = V + 1 + next    next = V at the sentence end (EOS)
// Each token contributes exactly two features (context_features.h maps them to word features). With n_w the count of w, N the token count and
// M[c, w] = Σ_tokens ψ_c(z) 1(x = w) the co-occurrence counts:
//   Q̂[:, w] = M[:, w] / n_w (Eq. 5),  q̄ = Σ_w M[:, w] / N (Eq. 6),  p̂_w = n_w / N (Eq. 7).
// Counts are exact integers (held as doubles), reduced in shard order: the result does not depend
// on the thread count.
#pragma once

#include <Eigen/Dense>
#include <Eigen/Sparse>
#include <cstdint>
#include <vector>

#include "engine/base/cancel.h"
#include "engine/base/process_group.h"
#include "engine/base/status.h"

namespace seqflow {

struct MomentCounts {
  int32_t num_symbols = 0;                   // V
  int64_t tokens = 0;                        // N
  Eigen::VectorXd word_counts;               // [V] n_w
  Eigen::SparseMatrix<double> cooccurrence;  // [C x V] M: C = 2 (V + 1) one-hot, or feature contexts

  int32_t num_contexts() const { return static_cast<int32_t>(cooccurrence.rows()); }
  // q̄ (Eq. 6) and the column Q̂[:, w] (Eq. 5) as dense vectors; p̂_w = word_counts / tokens.
  Eigen::VectorXd ContextMean() const;
};

// Context feature ids (see above).
inline int32_t PreviousContext(int32_t prev, int32_t num_symbols) { return prev; }
inline int32_t NextContext(int32_t next, int32_t num_symbols) { return num_symbols + 1 + next; }

// The kernel's compute shards: sentences [g * kMomentCountShardSentences, ...) whatever the
// thread and process counts (distributed_shards.h maps shard g on rank g % P).
inline constexpr size_t kMomentCountShardSentences = 2048;

// Invalid if a symbol is outside [0, num_symbols) (naming sentence and position) or num_symbols
// < 1; Cancelled when asked. threads <= 0: all hardware threads. With `processes` (MPI ranks) the
// shards are counted across them and merged on rank 0 in shard order, then broadcast
// (distributed_shards.h). A rank reads only the sentences of the shards it maps, so the others may
// be left empty there (one rank checks each sentence's symbols: the one that maps it).
Result<MomentCounts> CollectMomentCounts(const std::vector<std::vector<int32_t>>& sentences, int32_t num_symbols,
                                         int threads, const CancelToken& cancel,
                                         const ProcessGroup* processes = nullptr);

}  // namespace seqflow

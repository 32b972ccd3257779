// One simplex QP (simplex_qp.h) per item, the loop the anchor estimators share: per word in
// moments/anchor_emissions.h, per word feature in moments/feature_moments.h. The items are cut
// into fixed shards over `threads` (common/parallel.h); each shard solves on its own copies of
// the two QPs (Solve keeps scratch in the object), so the results are the same bits for any
// thread count. Every item is either solved by the plain QP (λ = 0), by the interpolated one
// (λ > 0, toward a labeled estimate), or needs none.
#pragma once

#include <Eigen/Dense>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "engine/base/cancel.h"
#include "engine/base/status.h"
#include "nodes/optim/simplex_qp.h"

namespace seqflow {

enum class QpChoice { kNone, kPlain, kInterpolated };

struct SimplexQpBatchStats {
  int64_t qps = 0;
  int64_t iterations = 0;
  int64_t not_converged = 0;
};

// prepare(i, beta, start): fills item i's β and the γ to start from (both of size `dim`) and says
// which QP solves it; with kNone the item needs no QP (prepare has stored its result). store(i,
// gamma): the solution. prepare and store run on several threads at once, for different items.
// Errors: the first failing QP's status; Status::Cancelled("<what> cancelled") when `cancel` is
// requested.
Result<SimplexQpBatchStats> SolveSimplexQpBatch(
    size_t items, size_t shard_size, int threads, const CancelToken& cancel, const SimplexQp& plain,
    const SimplexQp& interpolated, Eigen::Index dim,
    const std::function<QpChoice(size_t, Eigen::VectorXd&, Eigen::VectorXd&)>& prepare,
    const std::function<void(size_t, const Eigen::VectorXd&)>& store, const std::string& what);

}  // namespace seqflow

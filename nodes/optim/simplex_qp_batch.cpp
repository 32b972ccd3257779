#include "nodes/optim/simplex_qp_batch.h"

#include <atomic>
#include <mutex>
#include <vector>

#include "nodes/common/parallel.h"

namespace seqflow {

Result<SimplexQpBatchStats> SolveSimplexQpBatch(
    size_t items, size_t shard_size, int threads, const CancelToken& cancel, const SimplexQp& plain,
    const SimplexQp& interpolated, Eigen::Index dim,
    const std::function<QpChoice(size_t, Eigen::VectorXd&, Eigen::VectorXd&)>& prepare,
    const std::function<void(size_t, const Eigen::VectorXd&)>& store, const std::string& what) {
  std::vector<SimplexQpBatchStats> shard_stats(NumShards(items, shard_size));
  std::mutex error_mutex;
  Status error;
  std::atomic<bool> failed{false};
  ParallelShards(items, shard_size, threads, [&](size_t shard, size_t begin, size_t end) {
    if (failed || cancel.requested()) return;
    SimplexQp own_plain = plain, own_interpolated = interpolated;
    Eigen::VectorXd beta(dim), gamma(dim);
    for (size_t i = begin; i < end; ++i) {
      const QpChoice choice = prepare(i, beta, gamma);
      if (choice == QpChoice::kNone) continue;
      Result<SimplexQpStats> stats = (choice == QpChoice::kInterpolated ? own_interpolated : own_plain).Solve(beta, gamma);
      if (!stats.ok()) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!failed) error = stats.status();
        failed = true;
        return;
      }
      SimplexQpBatchStats& s = shard_stats[shard];
      ++s.qps;
      s.iterations += stats->iterations;
      s.not_converged += stats->converged ? 0 : 1;
      store(i, gamma);
    }
  });
  if (failed) return error;
  if (cancel.requested()) return Status::Cancelled(what + " cancelled");
  SimplexQpBatchStats total;
  for (const SimplexQpBatchStats& s : shard_stats) {
    total.qps += s.qps;
    total.iterations += s.iterations;
    total.not_converged += s.not_converged;
  }
  return total;
}

}  // namespace seqflow

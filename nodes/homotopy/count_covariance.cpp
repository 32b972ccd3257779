#include "nodes/homotopy/count_covariance.h"

#include <algorithm>

#include "nodes/common/parallel.h"
#include "nodes/homotopy/covariance_ztable.h"

namespace seqflow {
namespace {

// Sentences per shard: the unit of parallel work and of the fixed reduction order.
constexpr size_t kShardSize = 32;
// The dense path keeps a shard's local covariances until its ordered reduce (about
// (K · distinct words)² doubles per sentence), so its shards are smaller.
constexpr size_t kDenseShardSize = 8;

struct CountSlot {
  ExpectedCounts counts;
  double entropy = 0;
};

struct TangentSlot {
  TangentWork work;
  TangentLaneWork<kLanes> lanes;
  ExpectedCounts d;
};

// The live sentences of [begin, end), longest first, packed kLanes at a time.
std::vector<LatticeBatch<kLanes>> PackShard(const HmmParams& hmm, const IdSentences& x,
                                            const std::vector<SentenceLattice>& lattices, size_t begin, size_t end) {
  std::vector<size_t> order = LengthSortedOrder(x, begin, end);
  std::erase_if(order, [&](size_t s) { return !lattices[s].alive(); });
  std::vector<LatticeBatch<kLanes>> batches((order.size() + kLanes - 1) / kLanes);
  for (size_t b = 0; b < batches.size(); ++b) {
    const size_t first = b * kLanes;
    const size_t n = std::min<size_t>(kLanes, order.size() - first);
    PackLatticeBatch<kLanes>(hmm, x, std::span<const size_t>(order).subspan(first, n), lattices, &batches[b]);
  }
  return batches;
}

// global(index[i], index[j]) += local(i, j).
void ScatterAdd(const LocalCovariance& local, Eigen::MatrixXd* global) {
  const Eigen::Index n = static_cast<Eigen::Index>(local.index.size());
  for (Eigen::Index j = 0; j < n; ++j) {
    double* col = global->data() + static_cast<Eigen::Index>(local.index[j]) * global->rows();
    for (Eigen::Index i = 0; i < n; ++i) col[local.index[i]] += local.cov(i, j);
  }
}

}  // namespace

CountCovariance::CountCovariance(const PomLayout& layout, const HmmParams& hmm, const IdSentences& unlabeled,
                                 int threads)
    : layout_(layout), hmm_(hmm), unlabeled_(&unlabeled), threads_(threads), lattices_(unlabeled.size()) {
  const int K = layout.num_states();
  const int V = layout.num_symbols();
  ExpectedCounts total = ExpectedCounts::Zero(K, V);
  double entropy = 0;
  std::vector<CountSlot> slots(OrderedSlots(threads));
  const bool lanes = !layout.free().transition;
  if (lanes) batches_.resize((unlabeled.size() + kShardSize - 1) / kShardSize);
  auto map = [&](size_t shard, size_t begin, size_t end, size_t slot) {
    CountSlot& c = slots[slot];
    c.counts = ExpectedCounts::Zero(K, V);
    c.entropy = 0;
    for (size_t s = begin; s < end; ++s) {
      if (unlabeled[s].empty()) continue;
      BuildLattice(hmm_, unlabeled[s], &lattices_[s]);
      AddLatticeCounts(hmm_, unlabeled[s], lattices_[s], &c.counts);
      c.entropy += LatticeEntropy(lattices_[s]);
    }
    if (lanes) batches_[shard] = PackShard(hmm_, unlabeled, lattices_, begin, end);
  };
  auto reduce = [&](size_t, size_t slot) {
    total.Add(slots[slot].counts);
    entropy += slots[slot].entropy;
  };
  ParallelShardsOrdered(unlabeled.size(), kShardSize, threads, slots.size(), map, reduce);
  expected_counts_ = layout.Gather(total);
  log_likelihood_ = total.log_likelihood;
  mean_token_entropy_ = total.tokens > 0 ? entropy / static_cast<double>(total.tokens) : 0.0;
}

Eigen::VectorXd CountCovariance::Apply(const Eigen::VectorXd& u) const {
  const int K = layout_.num_states();
  const int V = layout_.num_symbols();
  LogDirection dir;
  layout_.Scatter(u, &dir.initial, &dir.transition, &dir.emission);
  dir.transition_free = layout_.free().transition;
  ExpectedCounts total = ExpectedCounts::Zero(K, V);
  std::vector<TangentSlot> slots(OrderedSlots(threads_));
  auto map = [&](size_t shard, size_t begin, size_t end, size_t slot) {
    TangentSlot& t = slots[slot];
    t.d = ExpectedCounts::Zero(K, V);
    if (!batches_.empty()) {
      for (const LatticeBatch<kLanes>& b : batches_[shard]) AddCountTangentLanes<kLanes>(hmm_, b, dir, &t.lanes, &t.d);
      return;
    }
    for (size_t s = begin; s < end; ++s) {
      if ((*unlabeled_)[s].empty()) continue;
      AddCountTangent(hmm_, (*unlabeled_)[s], lattices_[s], dir, &t.work, &t.d);
    }
  };
  auto reduce = [&](size_t, size_t slot) { total.Add(slots[slot].d); };
  ParallelShardsOrdered(unlabeled_->size(), kShardSize, threads_, slots.size(), map, reduce);
  return layout_.Gather(total);
}

Eigen::MatrixXd CountCovariance::Dense() const {
  const int P = layout_.num_params();
  Eigen::MatrixXd cov = Eigen::MatrixXd::Zero(P, P);
  std::vector<std::vector<LocalCovariance>> slots(OrderedSlots(threads_));
  auto map = [&](size_t, size_t begin, size_t end, size_t slot) {
    std::vector<LocalCovariance>& locals = slots[slot];
    locals.resize(end - begin);
    for (size_t s = begin; s < end; ++s) {
      LocalCovariance& local = locals[s - begin];
      local.index.clear();
      if (!(*unlabeled_)[s].empty()) SentenceCovariance(layout_, hmm_, (*unlabeled_)[s], lattices_[s], &local);
    }
  };
  auto reduce = [&](size_t, size_t slot) {
    for (const LocalCovariance& local : slots[slot]) ScatterAdd(local, &cov);
  };
  ParallelShardsOrdered(unlabeled_->size(), kDenseShardSize, threads_, slots.size(), map, reduce);
  return cov;
}

}  // namespace seqflow

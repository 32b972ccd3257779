#include "nodes/homotopy/count_covariance.h"

#include <cmath>

#include "nodes/chain/tangent_lanes.h"
#include "nodes/common/parallel.h"
#include "nodes/homotopy/covariance_ztable.h"
#include "nodes/common/portable_math.h"

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
  ChainLanesWork work;
  LaneVector<Lanes<kLanes>> xi;                  // [K x K] per lane
  std::array<Eigen::MatrixXd, kLanes> marginals;  // [K x len] P_t in column t
};

struct TangentSlot {
  ChainTangentWork work;
  ExpectedCounts d;
  RowMatrixXd transition;  // [K x K] Σ dξ, row-major as the chain library writes it
};

// counts and entropy += one live sentence's posteriors γ [K x T].
void AddPosteriors(std::span<const int32_t> x, const Eigen::MatrixXd& gamma, CountSlot* c) {
  c->counts.initial += gamma.col(0);
  for (size_t t = 0; t < x.size(); ++t) c->counts.emission.col(x[t]) += gamma.col(static_cast<Eigen::Index>(t));
  for (Eigen::Index i = 0; i < gamma.size(); ++i) {
    const double g = gamma.data()[i];
    if (g > 0) c->entropy -= g * Log(g);
  }
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
    : layout_(layout),
      hmm_(hmm),
      unlabeled_(&unlabeled),
      threads_(threads),
      transition_(ChainLanesTransition::FromProbabilities(hmm_.transition)),
      batches_((unlabeled.size() + kShardSize - 1) / kShardSize),
      places_(unlabeled.size()) {
  const int K = layout.num_states();
  const int V = layout.num_symbols();
  const ChainPotentials potentials{hmm_.emission.data(), ChainPotentials::Kind::kProbabilities, hmm_.initial.data()};
  ExpectedCounts total = ExpectedCounts::Zero(K, V);
  double entropy = 0;
  std::vector<CountSlot> slots(OrderedSlots(threads));
  auto map = [&](size_t shard, size_t begin, size_t end, size_t slot) {
    CountSlot& c = slots[slot];
    c.counts = ExpectedCounts::Zero(K, V);
    c.entropy = 0;
    c.xi.assign(static_cast<size_t>(K) * K, Lanes<kLanes>{});
    const std::vector<size_t> order = LengthSortedOrder(unlabeled, begin, end);
    std::vector<Batch>& batches = batches_[shard];
    batches.resize((order.size() + kLanes - 1) / kLanes);
    for (size_t b = 0; b < batches.size(); ++b) {
      Batch& batch = batches[b];
      std::array<double*, kLanes> rows{};  // P_t row-major [T x K] = column-major [K x T]
      for (int l = 0; l < kLanes && b * kLanes + l < order.size(); ++l) {
        const size_t s = order[b * kLanes + l];
        batch.lanes.obs[l] = unlabeled[s];
        c.marginals[l].resize(K, batch.lanes.len(l));
        rows[l] = c.marginals[l].data();
        places_[s] = {static_cast<int32_t>(b), l};
      }
      batch.lanes.length = batch.lanes.len(0);  // longest first
      ChainLanesForwardBackward<double>(potentials, transition_, batch.lanes, c.work, rows, c.xi.data(), &batch.tables);
      for (int l = 0; l < kLanes && rows[l] != nullptr; ++l) {
        c.counts.tokens += batch.lanes.len(l);
        c.counts.log_likelihood += batch.tables.log_z[l];
        if (batch.tables.live(l, batch.lanes)) AddPosteriors(batch.lanes.obs[l], c.marginals[l], &c);
      }
    }
    RowMatrixXd bigrams = RowMatrixXd::Zero(K, K);
    ChainLanesAddBigrams(transition_, c.xi.data(), bigrams.data());
    c.counts.transition = bigrams;
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
  Eigen::VectorXd initial;
  Eigen::MatrixXd transition, emission;
  layout_.Scatter(u, &initial, &transition, &emission);
  const bool bigrams = layout_.free().transition;
  const RowMatrixXd transition_rows = transition;  // U_A row-major, as the chain library reads it
  const ChainTangentDirection direction{emission.data(), initial.data(), bigrams ? transition_rows.data() : nullptr};
  ExpectedCounts total = ExpectedCounts::Zero(K, V);
  std::vector<TangentSlot> slots(OrderedSlots(threads_));
  auto map = [&](size_t shard, size_t, size_t, size_t slot) {
    TangentSlot& t = slots[slot];
    t.d = ExpectedCounts::Zero(K, V);
    t.transition.setZero(K, K);
    const ChainTangentOutput out{t.d.emission.data(), t.d.initial.data(), t.transition.data()};
    for (const Batch& b : batches_[shard]) ChainLanesTangent(transition_, b.lanes, b.tables, direction, t.work, out);
    t.d.transition = t.transition;
  };
  auto reduce = [&](size_t, size_t slot) { total.Add(slots[slot].d); };
  ParallelShardsOrdered(unlabeled_->size(), kShardSize, threads_, slots.size(), map, reduce);
  return layout_.Gather(total);
}

Eigen::MatrixXd CountCovariance::Dense() const {
  const int P = layout_.num_params();
  const int K = layout_.num_states();
  Eigen::MatrixXd cov = Eigen::MatrixXd::Zero(P, P);
  std::vector<std::vector<LocalCovariance>> slots(OrderedSlots(threads_));
  auto map = [&](size_t, size_t begin, size_t end, size_t slot) {
    std::vector<LocalCovariance>& locals = slots[slot];
    locals.resize(end - begin);
    SentenceLattice lattice;
    for (size_t s = begin; s < end; ++s) {
      LocalCovariance& local = locals[s - begin];
      local.index.clear();
      const Place place = places_[s];
      if (place.batch < 0) continue;
      const std::span<const int32_t> x = (*unlabeled_)[s];
      LatticeFromLanes(batches_[s / kShardSize][place.batch].tables, K, place.lane, static_cast<int>(x.size()),
                       &lattice);
      SentenceCovariance(layout_, hmm_, x, lattice, &local);
    }
  };
  auto reduce = [&](size_t, size_t slot) {
    for (const LocalCovariance& local : slots[slot]) ScatterAdd(local, &cov);
  };
  ParallelShardsOrdered(unlabeled_->size(), kDenseShardSize, threads_, slots.size(), map, reduce);
  return cov;
}

}  // namespace seqflow

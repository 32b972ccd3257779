#include "nodes/features/moment_counts.h"

#include <algorithm>
#include <atomic>
#include <string>

#include "engine/base/bytes.h"
#include "nodes/common/distributed_shards.h"
#include "nodes/common/parallel.h"

namespace seqflow {

namespace {


// A (symbol, context) pair packed so that sorting orders by symbol, then context: the
// column-major order of the sparse matrix.
uint64_t Key(int32_t symbol, int32_t context) {
  return (static_cast<uint64_t>(symbol) << 32) | static_cast<uint32_t>(context);
}

struct KeyCount {
  uint64_t key;
  double count;
};

// Bits needed for values in [0, n).
int BitsFor(uint64_t n) {
  int bits = 0;
  while (bits < 32 && (uint64_t{1} << bits) < n) ++bits;
  return bits;
}

// LSD radix sort of Key(symbol, context) with symbol < 2^symbol_bits and context <
// 2^context_bits, 11 bits a pass over the bits in use only (4 passes for 40 K symbols and 80 K
// contexts): the same order as std::sort, in linear time. `scratch` is reused across shards.
void RadixSortKeys(std::vector<uint64_t>& keys, std::vector<uint64_t>& scratch, int symbol_bits, int context_bits) {
  constexpr int kDigitBits = 11;
  constexpr size_t kBuckets = size_t{1} << kDigitBits;
  scratch.resize(keys.size());
  std::vector<size_t> offsets(kBuckets);
  auto pass = [&](int shift) {
    std::fill(offsets.begin(), offsets.end(), 0);
    for (uint64_t key : keys) ++offsets[(key >> shift) & (kBuckets - 1)];
    size_t sum = 0;
    for (size_t& o : offsets) {
      const size_t n = o;
      o = sum;
      sum += n;
    }
    for (uint64_t key : keys) scratch[offsets[(key >> shift) & (kBuckets - 1)]++] = key;
    keys.swap(scratch);
  };
  for (int shift = 0; shift < context_bits; shift += kDigitBits) pass(shift);
  for (int shift = 0; shift < symbol_bits; shift += kDigitBits) pass(32 + shift);
}

// Sorted (key, count) runs of `keys`.
void CountRuns(std::vector<uint64_t>& keys, std::vector<uint64_t>& scratch, int symbol_bits, int context_bits,
               std::vector<KeyCount>& out) {
  RadixSortKeys(keys, scratch, symbol_bits, context_bits);
  out.clear();
  for (uint64_t key : keys) {
    if (!out.empty() && out.back().key == key)
      out.back().count += 1;
    else
      out.push_back({key, 1});
  }
}

// Two sorted runs merged, the counts of a key in both added.
std::vector<KeyCount> MergeRuns(const std::vector<KeyCount>& a, const std::vector<KeyCount>& b) {
  std::vector<KeyCount> merged;
  merged.reserve(a.size() + b.size());
  auto i = a.begin(), j = b.begin();
  while (i != a.end() && j != b.end()) {
    if (i->key < j->key) {
      merged.push_back(*i++);
    } else if (j->key < i->key) {
      merged.push_back(*j++);
    } else {
      merged.push_back({i->key, i->count + j->count});
      ++i, ++j;
    }
  }
  merged.insert(merged.end(), i, a.end());
  merged.insert(merged.end(), j, b.end());
  return merged;
}

// A shard's sorted (key, count) runs as bytes, for rank 0 (distributed_shards.h).
std::string EncodeRuns(const std::vector<KeyCount>& runs) {
  ByteWriter w;
  w.U64(runs.size());
  for (const KeyCount& kc : runs) {
    w.U64(kc.key);
    w.F64(kc.count);
  }
  return w.Take();
}

Status DecodeRuns(const std::string& bytes, std::vector<KeyCount>* runs) {
  try {
    ByteReader r(bytes);
    runs->resize(r.Count(2 * sizeof(uint64_t)));
    for (KeyCount& kc : *runs) {
      kc.key = r.U64();
      kc.count = r.F64();
    }
    r.ExpectEnd();
    return Status::Ok();
  } catch (const StatusError& e) {
    return Status::Internal("moment counts from another process: " + e.status().message());
  }
}

}  // namespace

Eigen::VectorXd MomentCounts::ContextMean() const {
  Eigen::VectorXd sum = Eigen::VectorXd::Zero(num_contexts());
  for (int w = 0; w < cooccurrence.outerSize(); ++w)
    for (Eigen::SparseMatrix<double>::InnerIterator it(cooccurrence, w); it; ++it) sum[it.row()] += it.value();
  return tokens > 0 ? Eigen::VectorXd(sum / static_cast<double>(tokens)) : sum;
}

Result<MomentCounts> CollectMomentCounts(const std::vector<std::vector<int32_t>>& sentences, int32_t num_symbols,
                                         int threads, const CancelToken& cancel, const ProcessGroup* processes) {
  if (num_symbols < 1) return Status::Invalid("moment counts need at least one symbol");
  for (size_t s = 0; s < sentences.size(); ++s)
    for (size_t t = 0; t < sentences[s].size(); ++t)
      if (sentences[s][t] < 0 || sentences[s][t] >= num_symbols)
        return Status::Invalid("sentence " + std::to_string(s + 1) + " token " + std::to_string(t + 1) + ": symbol " +
                               std::to_string(sentences[s][t]) + " outside [0, " + std::to_string(num_symbols) + ")");
  const int32_t v = num_symbols;
  const size_t slots = OrderedSlots(threads);
  std::vector<std::vector<uint64_t>> keys(slots), scratch(slots);
  const int symbol_bits = BitsFor(static_cast<uint64_t>(v)), context_bits = BitsFor(2 * (static_cast<uint64_t>(v) + 1));
  std::vector<std::vector<KeyCount>> runs(slots + 1);  // the last receives other processes' shards
  std::atomic<bool> cancelled{false};
  DistributedShardsFns fns;
  fns.map = [&](size_t, size_t begin, size_t end, size_t slot) {
    if (cancel.requested()) {
      cancelled = true;
      return;
    }
    std::vector<uint64_t>& k = keys[slot];
    k.clear();
    for (size_t s = begin; s < end; ++s) {
      const std::vector<int32_t>& x = sentences[s];
      for (size_t t = 0; t < x.size(); ++t) {
        const int32_t prev = t == 0 ? v : x[t - 1];
        const int32_t next = t + 1 == x.size() ? v : x[t + 1];
        k.push_back(Key(x[t], PreviousContext(prev, v)));
        k.push_back(Key(x[t], NextContext(next, v)));
      }
    }
    CountRuns(k, scratch[slot], symbol_bits, context_bits, runs[slot]);
  };
  fns.encode = [&](size_t slot) { return EncodeRuns(runs[slot]); };
  fns.decode = [&](const std::string& bytes, size_t slot) { return DecodeRuns(bytes, &runs[slot]); };
  // Shard runs merged as a binary counter in shard order: a run of 2^k shards is merged with the
  // previous one of 2^k shards, so every count is merged O(log shards) times instead of once per
  // later shard (the running total grows to millions of pairs). Counts are integers, exact in
  // double, so the grouping changes no bit; it is fixed by the shard order anyway.
  std::vector<std::pair<std::vector<KeyCount>, size_t>> pending;  // (runs, shards in them)
  fns.reduce = [&](size_t, size_t slot) {
    pending.emplace_back(runs[slot], 1);  // a copy: the slot's buffer is reused by the next shard
    while (pending.size() >= 2 && pending[pending.size() - 2].second == pending.back().second) {
      auto& [left, left_shards] = pending[pending.size() - 2];
      left = MergeRuns(left, pending.back().first);
      left_shards *= 2;
      pending.pop_back();
    }
  };
  SEQFLOW_RETURN_IF_ERROR(
      DistributedShardsOrdered(processes, sentences.size(), kMomentCountShardSentences, threads, slots, fns));
  std::vector<KeyCount> total;
  for (auto& [part, shards] : pending) total = total.empty() ? std::move(part) : MergeRuns(total, part);
  if (processes != nullptr && processes->size() > 1) {
    std::string bytes = processes->rank() == 0 ? EncodeRuns(total) : std::string();
    SEQFLOW_RETURN_IF_ERROR(processes->Broadcast(0, &bytes));
    if (processes->rank() != 0) SEQFLOW_RETURN_IF_ERROR(DecodeRuns(bytes, &total));
  }
  if (cancelled || cancel.requested()) return Status::Cancelled("moment collection cancelled");
  MomentCounts out;
  out.num_symbols = v;
  out.word_counts = Eigen::VectorXd::Zero(v);
  out.cooccurrence.resize(2 * (v + 1), v);
  std::vector<Eigen::Triplet<double>> triplets;
  triplets.reserve(total.size());
  for (const KeyCount& kc : total) {
    const auto w = static_cast<int32_t>(kc.key >> 32);
    const auto c = static_cast<int32_t>(kc.key & 0xffffffffu);
    triplets.emplace_back(c, w, kc.count);
    // Every token has exactly one previous-word feature: those counts sum to n_w.
    if (c <= v) out.word_counts[w] += kc.count;
  }
  out.cooccurrence.setFromTriplets(triplets.begin(), triplets.end());
  out.tokens = static_cast<int64_t>(out.word_counts.sum());
  return out;
}

}  // namespace seqflow
